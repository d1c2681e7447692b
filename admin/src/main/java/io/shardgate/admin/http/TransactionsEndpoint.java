package io.shardgate.admin.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.util.Map;
import java.util.Set;

/**
 * The two-phase commit routes (docs/transactions.md):
 *
 * <pre>
 * GET  /api/transactions                                   {"in_doubt": [{"xid": ..., "hostgroup": 10, ...}]}
 * POST /api/transactions/resolve?xid=sg.5.12.7&amp;outcome=commit   200 {"xid": ..., "outcome": ..., "resolved": n}
 * </pre>
 *
 * A malformed request gets 400, an outcome contradicting the logged one 409, no resolver 503.
 */
final class TransactionsEndpoint {
    static final Set<String> PATHS = Set.of("/api/transactions", "/api/transactions/resolve");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final TransactionControl transactions;

    /** @param transactions the router's resolver, or null (routes answer 503) */
    TransactionsEndpoint(TransactionControl transactions) {
        this.transactions = transactions;
    }

    static String allowed(String path) {
        return path.equals("/api/transactions") ? "GET" : "POST";
    }

    CacheEndpoint.Answer handle(HttpExchange exchange, String path) {
        if (transactions == null) {
            return new CacheEndpoint.Answer(503, ConfigJson.error("this process runs no two-phase resolver"));
        }
        if (path.equals("/api/transactions")) {
            ObjectNode body = JSON.createObjectNode();
            body.set("in_doubt", JSON.valueToTree(transactions.inDoubt()));
            return new CacheEndpoint.Answer(200, body);
        }
        Map<String, String> query;
        try {
            query = CacheEndpoint.query(exchange.getRequestURI().getRawQuery());
        } catch (IllegalArgumentException e) {
            return new CacheEndpoint.Answer(400, ConfigJson.error(e.getMessage()));
        }
        String xid = query.get("xid");
        String outcome = query.get("outcome");
        if (xid == null || outcome == null || query.size() != 2) {
            return new CacheEndpoint.Answer(
                    400, ConfigJson.error("expected ?xid=<sg.node.epoch.n.manager>&outcome=commit|rollback"));
        }
        try {
            int resolved = transactions.resolve(xid, outcome);
            ObjectNode body = JSON.createObjectNode();
            body.put("xid", xid);
            body.put("outcome", outcome);
            body.put("resolved", resolved);
            return new CacheEndpoint.Answer(200, body);
        } catch (IllegalArgumentException e) {
            return new CacheEndpoint.Answer(400, ConfigJson.error(e.getMessage()));
        } catch (IllegalStateException e) {
            return new CacheEndpoint.Answer(409, ConfigJson.error(e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new CacheEndpoint.Answer(503, ConfigJson.error("interrupted"));
        } catch (Exception e) {
            return new CacheEndpoint.Answer(503, ConfigJson.error("resolving " + xid + " failed: " + e));
        }
    }
}
