package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.sharding.rule.KeyHash;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cleanup after a move's switch: the source still holds stale copies of the moved rows until
 * they are deleted, so statements that could reach them (a COUNT(*) over every shard) wait, while
 * statements routed to one shard by the key run. The source's cleanup is stopped on purpose (a
 * trigger on the source's DELETE waits for a user lock the test holds), so the window in which the
 * stale copies exist is as long as the test needs, not a matter of timing.
 */
class MoveCleanupIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final int BUCKETS = 16;
    private static final int ROWS = 2_000;
    private static final String ORDERS =
            "CREATE TABLE orders (id BIGINT PRIMARY KEY, amount INT NOT NULL, note VARCHAR(40)) ENGINE=InnoDB";
    /** Each DELETE on the source's orders waits for this lock: the cleanup stops while the test holds it. */
    private static final String GATE = "move_cleanup_gate";

    @TempDir
    static Path dir;

    private static MoveShards shards;
    private static Shardgate router;
    private static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        shards = MoveShards.start(ORDERS);
        try (Connection c = shards.direct(20);
                Statement s = c.createStatement()) {
            s.execute("CREATE TRIGGER orders_cleanup_gate BEFORE DELETE ON orders FOR EACH ROW"
                    + " SET @gate = GET_LOCK('" + GATE + "', 120)");
        }
        router = Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, http_port: 0, admin_port: 0, data_dir: \""
                        + Files.createDirectories(dir.resolve("router")) + "\"}",
                "users: [{name: app, password: app}]",
                "hostgroups:",
                shards.hostgroupsYaml(),
                "schemas:",
                "  - name: shop",
                "    default_hostgroup: 10",
                "    tables:",
                "      - {name: orders, strategy: hash, column: id, buckets: " + BUCKETS
                        + ", hostgroups: {10: \"0-7\", 20: \"8-15\"}}",
                "")));
    }

    @AfterAll
    static void stop() {
        if (router != null) {
            router.close();
        }
        if (shards != null) {
            shards.close();
        }
    }

    @Test
    void aScatterReadWaitsForTheCleanupWhileKeyRoutedStatementsRun() throws Exception {
        try (Connection c = client();
                PreparedStatement insert = c.prepareStatement("INSERT INTO orders VALUES (?, ?, 'preloaded')")) {
            for (long id = 1; id <= ROWS; id++) {
                insert.setLong(1, id);
                insert.setInt(2, (int) id);
                insert.executeUpdate();
            }
        }
        long moved = keyIn(12, 15);
        long keptOnSource = keyIn(8, 11);
        try (Connection gate = shards.direct(20);
                Connection c = client();
                Statement s = c.createStatement()) {
            assertThat(scalar(gate, "SELECT GET_LOCK('" + GATE + "', 0)")).isEqualTo(1);
            String id = JSON.readTree(post(
                            "{\"schema\": \"shop\", \"table\": \"orders\", \"buckets\": \"12-15\"," + " \"to\": 30}"))
                    .get("id")
                    .asText();
            JsonNode cleaning = awaitState(id, "cleaning_up");
            assertThat(cleaning.path("rulesVersion").asLong()).isPositive();
            long stale = staleOnSource();
            assertThat(stale)
                    .as("the source still holds the moved rows: the cleanup waits for the gate")
                    .isPositive();

            // routed by the key, on the target and on the source: they run now (held, they would fail with 1205)
            assertThat(scalar(c, "SELECT amount FROM orders WHERE id = " + moved))
                    .isEqualTo(moved);
            assertThat(scalar(c, "SELECT amount FROM orders WHERE id = " + keptOnSource))
                    .isEqualTo(keptOnSource);
            assertThat(s.executeUpdate("UPDATE orders SET amount = -amount WHERE id = " + moved))
                    .isEqualTo(1);
            assertThat(s.executeUpdate("UPDATE orders SET amount = -amount WHERE id = " + keptOnSource))
                    .isEqualTo(1);
            assertThat(amountOn(30, moved)).isEqualTo(-moved);
            assertThat(amountOn(20, keptOnSource)).isEqualTo(-keptOnSource);
            assertThat(amountOn(20, moved)).as("the stale copy, untouched").isEqualTo(moved);

            // over every shard: it would count the stale copies too, so it waits for the cleanup
            CompletableFuture<Long> count = CompletableFuture.supplyAsync(() -> {
                try (Connection other = client()) {
                    return scalar(other, "SELECT COUNT(*) FROM orders");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            long end = System.nanoTime() + PATIENCE.toNanos();
            while (!count.isDone() && router.moveHolds().waitingCount() == 0) {
                assertThat(System.nanoTime())
                        .as("the count neither ran nor waited")
                        .isLessThan(end);
                Thread.sleep(10);
            }
            assertThat(staleOnSource())
                    .as("still there while the count is decided")
                    .isEqualTo(stale);
            assertThat(scalar(gate, "SELECT RELEASE_LOCK('" + GATE + "')")).isEqualTo(1);
            assertThat(count.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .as("every row once: no stale copy counted")
                    .isEqualTo(ROWS);
            JsonNode done = awaitState(id, "done");
            assertThat(done.path("progress").path("rows_deleted_on_source").asLong())
                    .isEqualTo(stale);
            assertThat(done.path("progress").has("hold_millis")).as("%s", done).isTrue();
            assertThat(done.path("progress").has("cleanup_millis"))
                    .as("%s", done)
                    .isTrue();
        }
        assertThat(staleOnSource()).isZero();
        try (Connection c = client()) {
            assertThat(scalar(c, "SELECT COUNT(*) FROM orders")).isEqualTo(ROWS);
        }
    }

    /** The first preloaded key in buckets {@code lo}..{@code hi}. */
    private static long keyIn(int lo, int hi) {
        for (long id = 1; ; id++) {
            int bucket = KeyHash.bucket(id, BUCKETS);
            if (bucket >= lo && bucket <= hi) {
                return id;
            }
        }
    }

    /** Rows of the moved buckets on the source. */
    private static long staleOnSource() throws SQLException {
        long n = 0;
        try (Connection c = shards.direct(20);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM orders")) {
            while (rs.next()) {
                if (KeyHash.bucket(rs.getLong(1), BUCKETS) >= 12) {
                    n++;
                }
            }
        }
        return n;
    }

    private static long amountOn(int hostgroup, long id) throws SQLException {
        try (Connection c = shards.direct(hostgroup)) {
            return scalar(c, "SELECT amount FROM orders WHERE id = " + id);
        }
    }

    private static long scalar(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as(sql).isTrue();
            return rs.getLong(1);
        }
    }

    private static JsonNode awaitState(String id, String state) throws Exception {
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            JsonNode move = get("/api/moves/" + id);
            if (move.get("state").asText().equals(state)) {
                return move;
            }
            assertThat(move.get("state").asText()).as("the move: %s", move).isNotIn("failed", "cancelled");
            if (System.nanoTime() > end) {
                throw new AssertionError("the move is not " + state + " within " + PATIENCE + ": " + move);
            }
            Thread.sleep(20);
        }
    }

    private static JsonNode get(String path) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.httpPort() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static String post(String body) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.httpPort() + "/api/moves"))
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return r.body();
    }

    private static Connection client() throws SQLException {
        return Driver.MARIADB.connect(router.mysqlPort(), "shop", "app", "app");
    }
}
