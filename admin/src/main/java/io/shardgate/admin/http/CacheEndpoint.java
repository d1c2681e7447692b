package io.shardgate.admin.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.shardgate.cache.CacheStats;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The result cache's HTTP routes:
 *
 * <pre>
 * GET  /api/cache                            {"enabled": true, "total": {...}, "rules": {"0": {...}}}
 * POST /api/cache/purge                      every result
 * POST /api/cache/purge?schema=shop          the results of a schema
 * POST /api/cache/purge?schema=shop&amp;table=t  the results that read shop.t
 * POST /api/cache/purge?rule=3               the results cached under query rule 3
 *                                            each: 200 {"purged": n, "scope": "..."}
 * </pre>
 *
 * Unknown or conflicting parameters get 400 with the reason; no cache collaborator gets 503.
 */
final class CacheEndpoint {
    static final Set<String> PATHS = Set.of("/api/cache", "/api/cache/purge");
    private static final Set<String> PURGE_PARAMETERS = Set.of("schema", "table", "rule");

    /** An answer: HTTP status and JSON body. */
    record Answer(int status, ObjectNode body) {}

    private final CacheControl cache;

    /** @param cache the router's cache, or null when this process has none (routes answer 503) */
    CacheEndpoint(CacheControl cache) {
        this.cache = cache;
    }

    /** The method each path allows, for 405 answers. */
    static String allowed(String path) {
        return path.equals("/api/cache") ? "GET" : "POST";
    }

    Answer handle(HttpExchange exchange, String path) {
        if (cache == null) {
            return new Answer(503, ConfigJson.error("this process has no result cache"));
        }
        if (path.equals("/api/cache")) {
            return new Answer(200, stats());
        }
        Map<String, String> query;
        try {
            query = query(exchange.getRequestURI().getRawQuery());
        } catch (IllegalArgumentException e) {
            return new Answer(400, ConfigJson.error(e.getMessage()));
        }
        return purge(query);
    }

    private Answer purge(Map<String, String> query) {
        for (String name : query.keySet()) {
            if (!PURGE_PARAMETERS.contains(name)) {
                return bad("unknown parameter '" + name + "' (expected schema, table or rule)");
            }
        }
        String schema = query.get("schema");
        String table = query.get("table");
        String rule = query.get("rule");
        if (rule != null && (schema != null || table != null)) {
            return bad("rule cannot be combined with schema or table");
        }
        if (table != null && schema == null) {
            return bad("table needs its schema: ?schema=<name>&table=<name>");
        }
        if ((schema != null && schema.isEmpty()) || (table != null && table.isEmpty())) {
            return bad("schema and table must not be empty");
        }
        int purged;
        String scope;
        if (rule != null) {
            int index;
            try {
                index = Integer.parseInt(rule);
            } catch (NumberFormatException e) {
                return bad("rule must be a query rule index (0, 1, ...), not '" + rule + "'");
            }
            purged = cache.purgeRule(index);
            scope = "rule " + index;
        } else if (table != null) {
            purged = cache.purgeTable(schema, table);
            scope = "table " + schema + "." + table;
        } else if (schema != null) {
            purged = cache.purgeSchema(schema);
            scope = "schema " + schema;
        } else {
            purged = cache.purgeAll();
            scope = "all";
        }
        ObjectNode body = ConfigJson.MAPPER.createObjectNode();
        body.put("purged", purged).put("scope", scope);
        return new Answer(200, body);
    }

    private ObjectNode stats() {
        ObjectNode body = ConfigJson.MAPPER.createObjectNode();
        body.put("enabled", cache.enabled());
        body.set("total", json(cache.stats()));
        ObjectNode rules = body.putObject("rules");
        cache.statsByRule().forEach((rule, stats) -> rules.set(Integer.toString(rule), json(stats)));
        return body;
    }

    private static ObjectNode json(CacheStats s) {
        ObjectNode o = ConfigJson.MAPPER.createObjectNode();
        o.put("hits", s.hits())
                .put("waits", s.waits())
                .put("misses", s.misses())
                .put("stores", s.stores())
                .put("rejected", s.rejected())
                .put("evictions", s.evictions())
                .put("invalidations", s.invalidations())
                .put("entries", s.entries())
                .put("bytes", s.bytes());
        return o;
    }

    private static Answer bad(String reason) {
        return new Answer(400, ConfigJson.error(reason));
    }

    /** Decodes {@code a=1&b=x%20y}; a repeated name is an error rather than a silent choice. */
    static Map<String, String> query(String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            if (out.put(name, value) != null) {
                throw new IllegalArgumentException("parameter '" + name + "' given twice");
            }
        }
        return out;
    }
}
