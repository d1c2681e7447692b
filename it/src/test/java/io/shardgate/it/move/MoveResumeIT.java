package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardgate.admin.zookeeper.EmbeddedZooKeeper;
import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.move.MoveRecord;
import io.shardgate.sharding.rule.KeyHash;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A move outlives its router: two routers share one ZooKeeper; the one running the move is stopped
 * in the middle of the copy, and the other takes the move over and finishes it from the stored
 * progress, while a client writes through it. Afterwards every row is on the shard the new rules
 * name, exactly once.
 */
class MoveResumeIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final int BUCKETS = 16;
    private static final int ROWS = 60_000;

    @TempDir
    static Path dir;

    private static MoveShards shards;
    private static EmbeddedZooKeeper zooKeeper;
    private static final Map<String, Shardgate> routers = new HashMap<>();
    private static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        shards = MoveShards.start("CREATE TABLE orders (id BIGINT PRIMARY KEY, amount INT NOT NULL, note VARCHAR(40))");
        zooKeeper = new EmbeddedZooKeeper(dir.resolve("zookeeper"), 0);
        zooKeeper.start();
        routers.put("a", Shardgate.start(RouterConfig.parse(yaml("a"))));
        routers.put("b", Shardgate.start(RouterConfig.parse(yaml("b"))));
        // the rows, straight on their shards (as the rules place them), 1,000 a statement
        for (int from = 1; from <= ROWS; from += 1000) {
            Map<Integer, StringBuilder> inserts = new HashMap<>();
            for (int id = from; id < from + 1000; id++) {
                int owner = KeyHash.bucket(id, BUCKETS) < 8 ? 10 : 20;
                StringBuilder sql =
                        inserts.computeIfAbsent(owner, k -> new StringBuilder("INSERT INTO orders VALUES "));
                sql.append(sql.charAt(sql.length() - 1) == ' ' ? "" : ",")
                        .append("(")
                        .append(id)
                        .append(",")
                        .append(id)
                        .append(",'x')");
            }
            for (Map.Entry<Integer, StringBuilder> e : inserts.entrySet()) {
                try (Connection c = direct(e.getKey());
                        Statement s = c.createStatement()) {
                    s.execute(e.getValue().toString());
                }
            }
        }
    }

    private static String yaml(String name) throws Exception {
        return String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, http_port: 0, admin_port: 0, data_dir: \""
                        + Files.createDirectories(dir.resolve(name)) + "\"}",
                "zookeeper: {connect: \"127.0.0.1:" + zooKeeper.port() + "\", root: /shardgate/move-resume-it}",
                "users: [{name: app, password: app}]",
                "hostgroups:",
                shards.hostgroupsYaml(),
                "schemas:",
                "  - name: shop",
                "    default_hostgroup: 10",
                "    tables:",
                "      - {name: orders, strategy: hash, column: id, buckets: " + BUCKETS
                        + ", hostgroups: {10: \"0-7\", 20: \"8-15\"}}",
                "");
    }

    @AfterAll
    static void stop() throws Exception {
        for (Shardgate r : routers.values()) {
            r.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
        if (shards != null) {
            shards.close();
        }
    }

    @Test
    void theOtherRouterFinishesAMoveWhoseRouterStoppedMidCopy() throws Exception {
        awaitMove(
                "one router takes the mover's latch",
                () -> routers.values().stream().anyMatch(Shardgate::runsMoves));
        String moverName = routers.get("a").runsMoves() ? "a" : "b";
        Shardgate mover = routers.get(moverName);
        Shardgate survivor = routers.get(moverName.equals("a") ? "b" : "a");

        String id = JSON.readTree(post(
                        survivor,
                        "{\"schema\": \"shop\", \"table\": \"orders\", \"buckets\": \"12-15\", \"to\": 30,"
                                + " \"copy_rows_per_second\": 20000}"))
                .get("id")
                .asText();
        JsonNode copying = awaitState(
                survivor, id, m -> m.path("progress").path("rows_copied").asLong() > 0);
        assertThat(copying.get("state").asText())
                .as("stopped mid-copy: %s", copying)
                .isEqualTo("copying");
        long copiedBefore = copying.path("progress").path("rows_copied").asLong();
        mover.close();
        routers.remove(moverName);

        try (Connection c = Driver.MARIADB.connect(survivor.mysqlPort(), "shop", "app", "app");
                Statement s = c.createStatement()) {
            for (int id2 = ROWS + 1; id2 <= ROWS + 300; id2++) { // writes while the survivor resumes the move
                s.executeUpdate("INSERT INTO orders VALUES (" + id2 + ", " + id2 + ", 'during')");
                s.executeUpdate("UPDATE orders SET amount = amount + 1 WHERE id = " + (id2 - ROWS) * 97);
            }
        }
        JsonNode done =
                awaitState(survivor, id, m -> MoveRecord.ended(m.get("state").asText()));
        assertThat(done.get("state").asText()).as("%s", done).isEqualTo("done");
        assertThat(survivor.runsMoves()).isTrue();
        long moving = 0;
        for (int key = 1; key <= ROWS + 300; key++) {
            if (KeyHash.bucket(key, BUCKETS) >= 12) {
                moving++;
            }
        }
        assertThat(done.path("progress").path("rows_copied").asLong())
                .as("the copy went on from its last stored chunk (%d copied before the stop)", copiedBefore)
                .isLessThanOrEqualTo(moving);
        Map<Integer, Long> counts = new HashMap<>();
        long wrongPlace = 0;
        for (int hostgroup : new int[] {10, 20, 30}) {
            try (Connection c = direct(hostgroup);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id, amount FROM orders")) {
                while (rs.next()) {
                    long key = rs.getLong(1);
                    int bucket = KeyHash.bucket(key, BUCKETS);
                    int owner = bucket < 8 ? 10 : bucket < 12 ? 20 : 30;
                    if (owner != hostgroup) {
                        wrongPlace++;
                    }
                    long expected = key <= ROWS ? key + (key % 97 == 0 && key / 97 <= 300 ? 1 : 0) : key;
                    assertThat(rs.getLong(2))
                            .as("row %d on hostgroup %d", key, hostgroup)
                            .isEqualTo(expected);
                    counts.merge(hostgroup, 1L, Long::sum);
                }
            }
        }
        assertThat(wrongPlace)
                .as("rows on a shard the rules do not place them on")
                .isZero();
        assertThat(counts.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(ROWS + 300);
        assertThat(counts.get(30)).isEqualTo(moving);
    }

    private static JsonNode awaitState(Shardgate router, String id, Predicate<JsonNode> reached) throws Exception {
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.httpPort() + "/api/moves/" + id))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode move = JSON.readTree(r.body());
            if (reached.test(move)) {
                return move;
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("not within " + PATIENCE + ": " + move);
            }
            Thread.sleep(20);
        }
    }

    private interface Check {
        boolean ok() throws Exception;
    }

    private static void awaitMove(String what, Check check) throws Exception {
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (!check.ok()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within " + PATIENCE + ": " + what);
            }
            Thread.sleep(20);
        }
    }

    private static String post(Shardgate router, String body) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.httpPort() + "/api/moves"))
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return r.body();
    }

    private static Connection direct(int hostgroup) throws SQLException {
        return shards.direct(hostgroup);
    }
}
