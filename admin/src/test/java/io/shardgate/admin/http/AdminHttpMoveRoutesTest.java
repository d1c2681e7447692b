package io.shardgate.admin.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.shardgate.admin.store.ZkRuleStore;
import io.shardgate.admin.zookeeper.ZooKeeperFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/moves}: requests, answers and status codes over HTTP, in front of a move control kept in memory. */
class AdminHttpMoveRoutesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private ZooKeeperFixture zk;
    private ZkRuleStore store;
    private PrometheusMeterRegistry metrics;
    private AdminHttpServer server;
    private AdminHttpServer without;
    private final HttpClient http = HttpClient.newHttpClient();
    private final InMemoryMoves moves = new InMemoryMoves();

    /** The move control's contract as the router keeps it, in memory: what the HTTP layer must map. */
    private static final class InMemoryMoves implements MoveControl {
        final Map<String, Map<String, Object>> byId = new LinkedHashMap<>();

        @Override
        public String start(String schema, String table, String buckets, int to, long copyRowsPerSecond) {
            if (!buckets.matches("\\d+-\\d+")) {
                throw new IllegalArgumentException("buckets must be a range like \"512-1023\"");
            }
            if (byId.values().stream()
                    .anyMatch(m -> m.get("tables").equals(List.of(table))
                            && m.get("state").equals("copying"))) {
                throw new IllegalStateException("move m-1 of [" + table + "] is under way");
            }
            String id = "m-" + (byId.size() + 1);
            Map<String, Object> move = new LinkedHashMap<>();
            move.put("id", id);
            move.put("schema", schema);
            move.put("tables", List.of(table));
            move.put("what", buckets);
            move.put("target", to);
            move.put("copyRowsPerSecond", copyRowsPerSecond);
            move.put("state", "copying");
            byId.put(id, move);
            return id;
        }

        @Override
        public List<Map<String, Object>> list() {
            return new ArrayList<>(byId.values());
        }

        @Override
        public Map<String, Object> get(String id) {
            return byId.get(id);
        }

        @Override
        public void cancel(String id) {
            Map<String, Object> move = byId.get(id);
            if (move == null) {
                throw new IllegalArgumentException("no move " + id);
            }
            if (!move.get("state").equals("copying")) {
                throw new IllegalStateException("move " + id + " is " + move.get("state") + " already");
            }
            move.put("state", "cancelled");
        }

        @Override
        public void reverse(String id) {
            transition(id, "done", "reversing");
        }

        @Override
        public void cleanup(String id) {
            transition(id, "done", "cleaning_source");
        }

        private void transition(String id, String from, String to) {
            Map<String, Object> move = byId.get(id);
            if (move == null) {
                throw new IllegalArgumentException("no move " + id);
            }
            if (!move.get("state").equals(from)) {
                throw new IllegalStateException("move " + id + " is " + move.get("state"));
            }
            move.put("state", to);
        }
    }

    @BeforeEach
    void start() throws Exception {
        zk = new ZooKeeperFixture(dir.resolve("zk"));
        metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        store = new ZkRuleStore(zk.newClient(), "/shardgate/moves-http", documents -> List.of(), metrics);
        store.start();
        server = new AdminHttpServer(
                AdminHttpServer.loopback(0), store, metrics, null, ReadinessCheck.NONE, null, moves);
        server.start();
        without = new AdminHttpServer(
                AdminHttpServer.loopback(0), store, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        without.start();
    }

    @AfterEach
    void stop() {
        without.close();
        server.close();
        store.close();
        zk.close();
    }

    @Test
    void aMoveIsStartedWatchedListedAndCancelled() throws Exception {
        HttpResponse<String> started = send(
                server,
                "POST",
                "/api/moves",
                "{\"schema\": \"shop\", \"table\": \"orders\", \"buckets\": \"8-15\", \"to\": 30,"
                        + " \"copy_rows_per_second\": 5000}");
        assertThat(started.statusCode()).isEqualTo(202);
        assertThat(JSON.readTree(started.body()).get("id").asText()).isEqualTo("m-1");

        JsonNode one = JSON.readTree(send(server, "GET", "/api/moves/m-1", null).body());
        assertThat(one.get("state").asText()).isEqualTo("copying");
        assertThat(one.get("what").asText()).isEqualTo("8-15");
        assertThat(one.get("copyRowsPerSecond").asLong()).isEqualTo(5000);
        assertThat(JSON.readTree(send(server, "GET", "/api/moves", null).body()).get("moves"))
                .hasSize(1);

        HttpResponse<String> again = send(
                server,
                "POST",
                "/api/moves",
                "{\"schema\": \"shop\", \"table\": \"orders\", \"buckets\": \"0-7\", \"to\": 30}");
        assertThat(again.statusCode()).as(again.body()).isEqualTo(409);
        assertThat(again.body()).contains("under way");

        assertThat(send(server, "POST", "/api/moves/m-1/cancel", "").statusCode())
                .isEqualTo(200);
        assertThat(JSON.readTree(send(server, "GET", "/api/moves/m-1", null).body())
                        .get("state")
                        .asText())
                .isEqualTo("cancelled");
        HttpResponse<String> twice = send(server, "POST", "/api/moves/m-1/cancel", "");
        assertThat(twice.statusCode()).isEqualTo(409);
        assertThat(twice.body()).contains("cancelled already");
        assertThat(metrics.scrape())
                .contains("path=\"/api/moves/{id}\"")
                .contains("path=\"/api/moves/{id}/cancel\"")
                .doesNotContain("m-1\"");
    }

    @Test
    void aDoneTableMoveIsReversedOrCleanedUpWithTheStatusOfItsOutcome() throws Exception {
        send(
                server,
                "POST",
                "/api/moves",
                "{\"schema\": \"shop\", \"table\": \"orders\", \"buckets\": \"8-15\", \"to\": 30}");
        send(
                server,
                "POST",
                "/api/moves",
                "{\"schema\": \"shop\", \"table\": \"notes\", \"buckets\": \"0-1\", \"to\": 30}");
        HttpResponse<String> early = send(server, "POST", "/api/moves/m-1/reverse", "");
        assertThat(early.statusCode()).isEqualTo(409);
        assertThat(early.body()).contains("is copying");
        moves.byId.get("m-1").put("state", "done");
        moves.byId.get("m-2").put("state", "done");

        HttpResponse<String> reversed = send(server, "POST", "/api/moves/m-1/reverse", "");
        assertThat(reversed.statusCode()).as(reversed.body()).isEqualTo(200);
        assertThat(JSON.readTree(reversed.body()).get("state").asText()).isEqualTo("reversing");
        HttpResponse<String> cleaned = send(server, "POST", "/api/moves/m-2/cleanup", "");
        assertThat(cleaned.statusCode()).as(cleaned.body()).isEqualTo(200);
        assertThat(JSON.readTree(cleaned.body()).get("state").asText()).isEqualTo("cleaning_source");
        assertThat(send(server, "POST", "/api/moves/m-2/reverse", "").statusCode())
                .isEqualTo(409);
        assertThat(send(server, "POST", "/api/moves/m-9/cleanup", "").statusCode())
                .isEqualTo(404);
        assertThat(send(server, "GET", "/api/moves/m-1/reverse", null).statusCode())
                .isEqualTo(405);
        assertThat(metrics.scrape())
                .contains("path=\"/api/moves/{id}/reverse\"")
                .contains("path=\"/api/moves/{id}/cleanup\"");
    }

    @Test
    void badRequestsGetTheirStatusAndTheReason() throws Exception {
        assertThat(send(server, "POST", "/api/moves", "not json").statusCode()).isEqualTo(400);
        HttpResponse<String> missing =
                send(server, "POST", "/api/moves", "{\"schema\": \"shop\", \"table\": \"orders\"}");
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.body()).contains("\\\"buckets\\\": \\\"lo-hi\\\"");
        HttpResponse<String> refused = send(
                server,
                "POST",
                "/api/moves",
                "{\"schema\": \"shop\", \"table\": \"orders\", \"buckets\": \"table\", \"to\": 30}");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("range like");
        assertThat(send(server, "GET", "/api/moves/m-9", null).statusCode()).isEqualTo(404);
        assertThat(send(server, "POST", "/api/moves/m-9/cancel", "").statusCode())
                .isEqualTo(404);
        assertThat(send(server, "GET", "/api/moves/whatever", null).statusCode())
                .isEqualTo(404);
        HttpResponse<String> put = send(server, "PUT", "/api/moves", "{}");
        assertThat(put.statusCode()).isEqualTo(405);
        assertThat(put.headers().firstValue("Allow")).hasValue("GET, POST");
        assertThat(send(server, "GET", "/api/moves/m-1/cancel", null).statusCode())
                .isEqualTo(405);
        assertThat(send(without, "GET", "/api/moves", null).statusCode()).isEqualTo(503);
    }

    private HttpResponse<String> send(AdminHttpServer to, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to.port() + path));
        request.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
