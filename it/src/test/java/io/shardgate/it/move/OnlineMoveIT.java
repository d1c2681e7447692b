package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardgate.it.Driver;
import io.shardgate.router.Main;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.sharding.rule.KeyHash;
import java.io.PrintWriter;
import java.io.StringWriter;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Online resharding end to end: hostgroup 30 joins a cluster of two shards and takes buckets 12-15 of
 * {@code orders} from hostgroup 20 through {@code POST /api/moves}, while clients insert, update and
 * delete rows (autocommit and in transactions) through the router the whole time. Afterwards every
 * acknowledged write is there exactly once, on the shard the new rules name, and no client saw an
 * error.
 */
class OnlineMoveIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final int BUCKETS = 16;
    private static final String ORDERS =
            "CREATE TABLE orders (id BIGINT PRIMARY KEY, amount INT NOT NULL, note VARCHAR(40)) ENGINE=InnoDB";

    @TempDir
    static Path dir;

    private static MoveShards shards;
    private static Shardgate router;
    private static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        shards = MoveShards.start(ORDERS);
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
    void aShardJoinsUnderLoadWithNothingLostAndNoClientError() throws Exception {
        Map<Long, Integer> expected = new ConcurrentHashMap<>();
        try (Connection c = client();
                PreparedStatement insert = c.prepareStatement("INSERT INTO orders VALUES (?, ?, 'preloaded')")) {
            for (long id = 1; id <= 3000; id++) {
                insert.setLong(1, id);
                insert.setInt(2, (int) id);
                insert.executeUpdate();
                expected.put(id, (int) id);
            }
        }
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong writes = new AtomicLong();
        List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService load = Executors.newFixedThreadPool(4);
        List<Future<?>> clients = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int thread = t;
            clients.add(load.submit(() -> writeUntilStopped(thread, running, expected, writes, errors)));
        }
        while (writes.get() < 200) {
            Thread.sleep(20);
        }

        // started through the command line, which waits for the end and prints each state
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(
                "admin",
                "move",
                "start",
                "--url",
                "http://127.0.0.1:" + router.httpPort(),
                "--schema",
                "shop",
                "--table",
                "orders",
                "--buckets",
                "12-15",
                "--to",
                "30",
                "--wait");
        assertThat(exit).as("%s%s", out, err).isZero();
        assertThat(out.toString())
                .contains(" started")
                .contains("  done  shop.[\"orders\"]  buckets 12-15  [20] -> 30");
        String id = out.toString()
                .substring(out.toString().indexOf("m-"), out.toString().indexOf(" started"));
        JsonNode move = awaitEnd(id);
        long writesAtEnd = writes.get();
        while (writes.get() < writesAtEnd + 200) {
            Thread.sleep(20); // the clients go on under the new rules
        }
        running.set(false);
        for (Future<?> f : clients) {
            f.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
        load.shutdown();

        assertThat(move.get("state").asText()).as("the move: %s", move).isEqualTo("done");
        assertThat(errors).as("client errors").isEmpty();
        assertThat(move.path("progress").path("rows_copied").asLong()).isPositive();
        assertThat(move.path("rulesVersion").asLong()).isPositive();
        for (Map.Entry<Long, Integer> row : expected.entrySet()) {
            int bucket = KeyHash.bucket(row.getKey(), BUCKETS);
            int owner = bucket < 8 ? 10 : bucket < 12 ? 20 : 30;
            assertThat(amountOn(owner, row.getKey()))
                    .as(
                            "row %d (bucket %d) on hostgroup %d (on 10, 20, 30: %d, %d, %d)",
                            row.getKey(),
                            bucket,
                            owner,
                            amountOn(10, row.getKey()),
                            amountOn(20, row.getKey()),
                            amountOn(30, row.getKey()))
                    .isEqualTo(row.getValue());
        }
        Map<Integer, Long> expectedCounts = new HashMap<>();
        expected.forEach((key, amount) -> {
            if (amount != null && amount >= 0) {
                int bucket = KeyHash.bucket(key, BUCKETS);
                expectedCounts.merge(bucket < 8 ? 10 : bucket < 12 ? 20 : 30, 1L, Long::sum);
            }
        });
        assertThat(countMoved(30))
                .as("hostgroup 30 holds exactly the live rows of buckets 12-15")
                .isEqualTo(expectedCounts.get(30));
        try (Connection c = client();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM orders")) {
            rs.next();
            long live = expected.values().stream().filter(a -> a >= 0).count();
            assertThat(rs.getLong(1))
                    .as("every live row once, through the router")
                    .isEqualTo(live);
        }
    }

    /**
     * A client: inserts new rows, updates and deletes rows of its own (preloaded ids of its residue
     * mod 4), some in transactions; records what was acknowledged.
     */
    private static void writeUntilStopped(
            int thread, AtomicBoolean running, Map<Long, Integer> expected, AtomicLong writes, List<String> errors) {
        Random random = new Random(thread);
        long next = 1_000_000L * (thread + 1);
        try (Connection c = client()) {
            while (running.get()) {
                long id =
                        4L * random.nextInt(750) + thread + 1; // each client its own rows: acknowledgements order them
                int amount = random.nextInt(1_000_000);
                try (Statement s = c.createStatement()) {
                    switch (random.nextInt(4)) {
                        case 0 -> {
                            s.executeUpdate("INSERT INTO orders VALUES (" + next + ", " + amount + ", 'new')");
                            expected.put(next++, amount);
                        }
                        case 1 -> {
                            if (s.executeUpdate("UPDATE orders SET amount = " + amount + " WHERE id = " + id) > 0) {
                                expected.put(id, amount);
                            }
                        }
                        case 2 -> {
                            if (s.executeUpdate("DELETE FROM orders WHERE id = " + id) > 0) {
                                expected.put(id, -1);
                            }
                        }
                        default -> {
                            long other = 4L * random.nextInt(750) + thread + 1;
                            c.setAutoCommit(false);
                            int a = s.executeUpdate("UPDATE orders SET amount = " + amount + " WHERE id = " + id);
                            int b = s.executeUpdate(
                                    "UPDATE orders SET amount = " + (amount + 1) + " WHERE id = " + other);
                            c.commit();
                            c.setAutoCommit(true);
                            if (a > 0) {
                                expected.put(id, amount);
                            }
                            if (b > 0) {
                                expected.put(other, amount + 1);
                            }
                        }
                    }
                    writes.incrementAndGet();
                } catch (SQLException e) {
                    errors.add(e.getErrorCode() + " " + e.getMessage());
                    try {
                        c.setAutoCommit(true);
                    } catch (SQLException ignored) {
                        // the next statement reports it
                    }
                }
            }
        } catch (SQLException e) {
            errors.add("connection: " + e.getMessage());
        }
    }

    private static JsonNode awaitEnd(String id) throws Exception {
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            JsonNode move = get("/api/moves/" + id);
            String state = move.get("state").asText();
            if (state.equals("done") || state.equals("failed") || state.equals("cancelled")) {
                return move;
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("the move did not end within " + PATIENCE + ": " + move);
            }
            Thread.sleep(100);
        }
    }

    private static Integer amountOn(int hostgroup, long id) throws SQLException {
        try (Connection c = direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT amount FROM orders WHERE id = " + id)) {
            return rs.next() ? rs.getInt(1) : -1;
        }
    }

    private static long countMoved(int hostgroup) throws SQLException {
        long n = 0;
        try (Connection c = direct(hostgroup);
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

    private static JsonNode get(String path) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.httpPort() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static Connection client() throws SQLException {
        return Driver.MARIADB.connect(router.mysqlPort(), "shop", "app", "app");
    }

    private static Connection direct(int hostgroup) throws SQLException {
        return shards.direct(hostgroup);
    }
}
