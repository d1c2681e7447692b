package io.shardgate.admin.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The online resharding routes (docs/moves.md):
 *
 * <pre>
 * POST /api/moves               {"schema": "shop", "table": "orders", "buckets": "512-1023", "to": 30}  202 {"id": "m-0000000001"}
 *                               (optional "copy_rows_per_second": the copy's read rate limit)
 * GET  /api/moves               {"moves": [{...}, ...]}
 * GET  /api/moves/{id}          {"id": ..., "state": "copying", "progress": {...}, ...}
 * POST /api/moves/{id}/cancel   200 {"id": ..., "state": "cancelled"}
 * POST /api/moves/{id}/reverse  200 {"id": ..., "state": "reversing"}        (a done whole-table move)
 * POST /api/moves/{id}/cleanup  200 {"id": ..., "state": "cleaning_source"}  (a done whole-table move)
 * </pre>
 *
 * A malformed request gets 400, an unknown move 404, a conflict (a move of those tables under way,
 * one ended or cutting over) 409, no move control 503.
 */
final class MovesEndpoint {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> ACTIONS = List.of("/cancel", "/reverse", "/cleanup");
    private static final Pattern ONE = Pattern.compile("/api/moves/(m-[0-9]+)(/cancel|/reverse|/cleanup)?");
    private static final int MAX_BODY = 64 * 1024;

    private final MoveControl moves;

    /** @param moves the router's move control, or null (routes answer 503) */
    MovesEndpoint(MoveControl moves) {
        this.moves = moves;
    }

    static boolean handles(String path) {
        return path.equals("/api/moves") || path.startsWith("/api/moves/");
    }

    static String allowed(String path) {
        if (path.equals("/api/moves")) {
            return "GET, POST";
        }
        return action(path) != null ? "POST" : "GET";
    }

    /** {@code /api/moves/{id}} or {@code /api/moves/{id}/<action>}: the path as metrics name it (no ids). */
    static String template(String path) {
        String action = action(path);
        return action == null ? "/api/moves/{id}" : "/api/moves/{id}" + action;
    }

    /** The action a move's path asks for ({@code /cancel}, {@code /reverse}, {@code /cleanup}), or null. */
    private static String action(String path) {
        for (String action : ACTIONS) {
            if (path.endsWith(action)) {
                return action;
            }
        }
        return null;
    }

    CacheEndpoint.Answer handle(HttpExchange exchange, String path, String method) {
        if (moves == null) {
            return new CacheEndpoint.Answer(503, ConfigJson.error("this process runs no mover"));
        }
        try {
            if (path.equals("/api/moves")) {
                if (method.equals("GET")) {
                    ObjectNode body = JSON.createObjectNode();
                    body.set("moves", JSON.valueToTree(moves.list()));
                    return new CacheEndpoint.Answer(200, body);
                }
                return start(exchange.getRequestBody());
            }
            Matcher m = ONE.matcher(path);
            if (!m.matches()) {
                return new CacheEndpoint.Answer(404, ConfigJson.error("no such endpoint: " + path));
            }
            String id = m.group(1);
            if (m.group(2) != null) {
                String state = switch (m.group(2)) {
                    case "/cancel" -> {
                        moves.cancel(id);
                        yield "cancelled";
                    }
                    case "/reverse" -> {
                        moves.reverse(id);
                        yield "reversing";
                    }
                    default -> {
                        moves.cleanup(id);
                        yield "cleaning_source";
                    }
                };
                ObjectNode body = JSON.createObjectNode();
                body.put("id", id);
                body.put("state", state);
                return new CacheEndpoint.Answer(200, body);
            }
            Map<String, Object> move = moves.get(id);
            return move == null
                    ? new CacheEndpoint.Answer(404, ConfigJson.error("no move " + id))
                    : new CacheEndpoint.Answer(200, JSON.valueToTree(move));
        } catch (IllegalArgumentException e) {
            return new CacheEndpoint.Answer(
                    e.getMessage().startsWith("no move") ? 404 : 400, ConfigJson.error(e.getMessage()));
        } catch (IllegalStateException e) {
            return new CacheEndpoint.Answer(409, ConfigJson.error(e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new CacheEndpoint.Answer(503, ConfigJson.error("interrupted"));
        } catch (Exception e) {
            return new CacheEndpoint.Answer(503, ConfigJson.error("the move store failed: " + e));
        }
    }

    private CacheEndpoint.Answer start(InputStream in) throws Exception {
        byte[] body;
        try {
            body = in.readNBytes(MAX_BODY + 1);
        } catch (IOException e) {
            return new CacheEndpoint.Answer(400, ConfigJson.error("cannot read the body: " + e.getMessage()));
        }
        if (body.length > MAX_BODY) {
            return new CacheEndpoint.Answer(413, ConfigJson.error("the body exceeds " + MAX_BODY + " bytes"));
        }
        JsonNode request;
        try {
            request = JSON.readTree(body);
        } catch (IOException e) {
            return new CacheEndpoint.Answer(400, ConfigJson.error("the body is not JSON: " + e.getMessage()));
        }
        if (request == null
                || !request.path("schema").isTextual()
                || !request.path("table").isTextual()
                || !request.path("buckets").isTextual()
                || !request.path("to").canConvertToInt()
                || (request.has("copy_rows_per_second")
                        && !request.get("copy_rows_per_second").canConvertToLong())) {
            return new CacheEndpoint.Answer(
                    400,
                    ConfigJson.error(
                            "expected {\"schema\": ..., \"table\": ..., \"buckets\": \"lo-hi\" | \"table\", \"to\": hostgroup}"));
        }
        String id = moves.start(
                request.get("schema").asText(),
                request.get("table").asText(),
                request.get("buckets").asText(),
                request.get("to").asInt(),
                request.path("copy_rows_per_second").asLong(0));
        ObjectNode answer = JSON.createObjectNode();
        answer.put("id", id);
        return new CacheEndpoint.Answer(202, answer);
    }
}
