package io.shardgate.move;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Base64;

/**
 * A copy's {@link TableCopy.Progress} as text, so a move stores where each table's copy stands and
 * a router that takes the move over resumes there. The last key keeps its Java types (a key bound as
 * a string where it was a number would compare differently): {@code ["l:42", "s:abc", "b:AAE=",
 * "i:18446744073709551615", "d:1.50"]}.
 */
public final class ProgressCodec {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ProgressCodec() {}

    public static String encode(TableCopy.Progress progress) {
        ObjectNode node = JSON.createObjectNode();
        if (progress.lastKey() != null) {
            ArrayNode key = node.putArray("lastKey");
            for (Object v : progress.lastKey()) {
                key.add(value(v));
            }
        }
        node.put("read", progress.rowsRead());
        node.put("copied", progress.rowsCopied());
        node.put("done", progress.done());
        return node.toString();
    }

    public static TableCopy.Progress decode(String text) {
        try {
            JsonNode node = JSON.readTree(text);
            Object[] lastKey = null;
            if (node.has("lastKey")) {
                lastKey = new Object[node.get("lastKey").size()];
                for (int i = 0; i < lastKey.length; i++) {
                    lastKey[i] = value(node.get("lastKey").get(i).asText());
                }
            }
            return new TableCopy.Progress(
                    lastKey,
                    node.path("read").asLong(),
                    node.path("copied").asLong(),
                    node.path("done").asBoolean());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String value(Object v) {
        if (v instanceof Long l) {
            return "l:" + l;
        }
        if (v instanceof BigInteger i) {
            return "i:" + i;
        }
        if (v instanceof BigDecimal d) {
            return "d:" + d.toPlainString();
        }
        if (v instanceof String s) {
            return "s:" + s;
        }
        if (v instanceof byte[] b) {
            return "b:" + Base64.getEncoder().encodeToString(b);
        }
        throw new IllegalArgumentException(
                "a key value of type " + (v == null ? "null" : v.getClass().getName()));
    }

    private static Object value(String text) {
        String v = text.substring(2);
        return switch (text.substring(0, 2)) {
            case "l:" -> Long.parseLong(v);
            case "i:" -> new BigInteger(v);
            case "d:" -> new BigDecimal(v);
            case "s:" -> v;
            case "b:" -> Base64.getDecoder().decode(v);
            default -> throw new IllegalArgumentException("not a stored key value: " + text);
        };
    }
}
