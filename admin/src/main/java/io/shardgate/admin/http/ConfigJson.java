package io.shardgate.admin.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.admin.store.ConfigRejection;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.admin.store.LiveRouter;
import io.shardgate.admin.store.StoreStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The JSON of {@code /api/config} and {@code /api/status}.
 *
 * <p>A version reads as {@code {"version": 7, "documents": {"schemas": "<text>", ...}}}: documents
 * are the stored text, so what GET returns can be PUT back. A PUT body is {@code {"basedOn": 7,
 * "documents": {...}}} ({@code basedOn} optional: then the change goes on top of whatever is
 * current; without it a {@code version} field stands in, so a GET's answer edited and PUT back is a
 * change based on the version it was read from); a document given as a JSON object or array rather than a string is stored as its
 * compact JSON text.
 */
final class ConfigJson {
    static final ObjectMapper MAPPER = new ObjectMapper();

    /** A parsed PUT body. */
    record Change(OptionalLong basedOn, ConfigDocuments documents) {}

    /** A PUT body that cannot be a change, with the reasons. */
    static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;

        private final List<String> problems;

        BadRequest(List<String> problems) {
            super(String.join("; ", problems));
            this.problems = List.copyOf(problems);
        }

        List<String> problems() {
            return problems;
        }
    }

    private ConfigJson() {}

    static Change parseChange(byte[] body) throws BadRequest {
        JsonNode root;
        try {
            root = MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw new BadRequest(List.of("the body is not JSON: " + e.getOriginalMessage()));
        } catch (IOException e) {
            throw new IllegalStateException("reading a byte array cannot fail", e);
        }
        if (root == null || !root.isObject()) {
            throw new BadRequest(List.of("the body must be a JSON object with \"documents\""));
        }
        List<String> problems = new ArrayList<>();
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals("basedOn") && !name.equals("documents") && !name.equals("version")) {
                problems.add("unknown field \"" + name + "\"");
            }
        }
        OptionalLong basedOn = OptionalLong.empty();
        JsonNode based = root.has("basedOn") ? root.get("basedOn") : root.get("version");
        if (based != null && !based.isNull()) {
            if (based.canConvertToExactIntegral() && based.asLong() >= 0) {
                basedOn = OptionalLong.of(based.asLong());
            } else {
                problems.add("\"basedOn\" (or \"version\") must be a version number");
            }
        }
        Map<String, String> sections = new TreeMap<>();
        JsonNode documents = root.get("documents");
        if (documents == null || !documents.isObject()) {
            problems.add("\"documents\" must be an object of section name to document");
        } else {
            for (Map.Entry<String, JsonNode> e : documents.properties()) {
                sections.put(e.getKey(), documentText(e.getValue()));
            }
        }
        if (!problems.isEmpty()) {
            throw new BadRequest(problems);
        }
        try {
            return new Change(basedOn, ConfigDocuments.of(sections));
        } catch (IllegalArgumentException e) {
            throw new BadRequest(List.of(e.getMessage()));
        }
    }

    private static String documentText(JsonNode node) {
        if (node.isTextual()) {
            return node.textValue();
        }
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a parsed JSON tree always serialises", e);
        }
    }

    static ObjectNode version(ConfigVersion version) {
        ObjectNode out = MAPPER.createObjectNode();
        out.put("version", version.number());
        ObjectNode docs = out.putObject("documents");
        version.documents().sections().forEach(docs::put);
        return out;
    }

    static ObjectNode problems(String error, List<String> problems) {
        ObjectNode out = MAPPER.createObjectNode();
        out.put("error", error);
        ArrayNode list = out.putArray("problems");
        problems.forEach(list::add);
        return out;
    }

    static ObjectNode error(String error) {
        return MAPPER.createObjectNode().put("error", error);
    }

    static ObjectNode status(StoreStatus status, List<LiveRouter> routers, String routersError) {
        ObjectNode out = MAPPER.createObjectNode();
        out.put("version", status.currentVersion());
        out.put("connected", status.connected());
        status.lastRejection()
                .ifPresentOrElse(r -> out.set("lastRejection", rejection(r)), () -> out.putNull("lastRejection"));
        if (routersError == null) {
            out.set("routers", MAPPER.valueToTree(routers));
        } else {
            out.put("routersError", routersError);
        }
        return out;
    }

    private static ObjectNode rejection(ConfigRejection rejection) {
        ObjectNode out = problems("version " + rejection.version() + " refused", rejection.problems());
        out.put("version", rejection.version());
        out.put("source", rejection.source());
        out.put("at", rejection.at().toString());
        return out;
    }
}
