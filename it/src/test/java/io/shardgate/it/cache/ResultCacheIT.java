package io.shardgate.it.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.cache.CacheStats;
import io.shardgate.it.Driver;
import io.shardgate.it.proxy.Mode;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The result cache through a real router in front of two real MariaDB shards, with both JDBC
 * drivers in the text and the binary (server-side prepared) protocol: cached answers equal the
 * backend's, hits never reach a backend (its Com_select counter stays put), writes through the
 * router are seen by the next read (at COMMIT inside a transaction), writes straight to a backend
 * after the TTL, and what must not be cached is not.
 */
class ResultCacheIT {
    static final String SCHEMA = "shop";
    static final String USER = "app";
    static final String PASSWORD = "app-secret";
    static final String BACKEND_USER = "shardgate";
    static final String BACKEND_PASSWORD = "sg-secret";
    /** Results above this are not stored. */
    static final int MAX_ENTRY_BYTES = 64 * 1024;

    @TempDir
    static Path dataDir;

    static MariaDbServer shard10;
    static MariaDbServer shard20;
    static Shardgate router;

    @BeforeAll
    static void start() throws Exception {
        shard10 = shard();
        shard20 = shard();
        String yaml = String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, http_port: 0, data_dir: \""
                        + Files.createDirectories(dataDir.resolve("router")) + "\"}",
                "users: [{name: " + USER + ", password: " + PASSWORD + "}]",
                "hostgroups:",
                "  - {id: 10, writer: \"" + shard10.address() + "\", user: " + BACKEND_USER + ", password: "
                        + BACKEND_PASSWORD + "}",
                "  - {id: 20, writer: \"" + shard20.address() + "\", user: " + BACKEND_USER + ", password: "
                        + BACKEND_PASSWORD + "}",
                "schemas:",
                "  - name: " + SCHEMA,
                "    default_hostgroup: 10",
                "    tables:",
                "      - {name: accounts, strategy: hash, column: id, buckets: 4, hostgroups: {10: \"0-1\", 20: \"2-3\"}}",
                "cache: {enabled: true, max_bytes: 67108864, max_entry_bytes: " + MAX_ENTRY_BYTES
                        + ", fill_timeout_ms: 30000}",
                "query_rules:",
                "  - {match_digest: \"FROM `?items\", cache_ttl_ms: 600000}",
                "  - {match_digest: \"FROM `?ticks\", cache_ttl_ms: 300}",
                "  - {match_digest: \"FROM `?versions\", cache_ttl_ms: 50}",
                "  - {match_digest: \"FROM `?accounts\", cache_ttl_ms: 600000}",
                "  - {match_digest: \"^SELECT NOW\", cache_ttl_ms: 600000}",
                "  - {match_digest: \"FROM `?blobs\", cache_ttl_ms: 600000}",
                "");
        router = Shardgate.start(RouterConfig.parse(yaml));
        try (Connection c = direct(shard10);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(10,2), seen DATETIME)");
            for (int i = 1; i <= 40; i++) {
                s.execute("INSERT INTO items VALUES (" + i + ", 'item " + i + "', " + i + ".25, '2026-01-0"
                        + (1 + i % 9) + " 10:00:00')");
            }
            s.execute("CREATE TABLE ticks (id INT PRIMARY KEY, n INT)");
            s.execute("INSERT INTO ticks VALUES (1, 0), (2, 0), (3, 0), (4, 0)");
            s.execute("CREATE TABLE versions (grp INT, id INT, v INT, w INT, PRIMARY KEY (grp, id))");
            StringBuilder rows = new StringBuilder();
            for (int g = 0; g < ConcurrencyCheck.KEYS; g++) {
                for (int r = 0; r < 3; r++) {
                    rows.append(rows.length() == 0 ? "" : ", ")
                            .append('(')
                            .append(g)
                            .append(", ")
                            .append(r)
                            .append(", 0, 0)");
                }
            }
            s.execute("INSERT INTO versions VALUES " + rows);
            s.execute("CREATE TABLE blobs (id INT PRIMARY KEY, body MEDIUMBLOB)");
            s.execute(
                    "INSERT INTO blobs VALUES (1, REPEAT('x', 100)), (2, REPEAT('y', " + (2 * MAX_ENTRY_BYTES) + "))");
        }
        for (MariaDbServer shard : List.of(shard10, shard20)) {
            try (Connection c = direct(shard);
                    Statement s = c.createStatement()) {
                s.execute("SET GLOBAL log_output = 'TABLE', GLOBAL general_log = ON"); // see executions()
                s.execute("CREATE TABLE accounts (id BIGINT PRIMARY KEY, owner VARCHAR(40), balance INT)");
            }
        }
        try (Connection c = proxied(Driver.MARIADB, Mode.TEXT);
                Statement s = c.createStatement()) {
            for (int id = 1; id <= 20; id++) {
                s.execute("INSERT INTO accounts (id, owner, balance) VALUES (" + id + ", 'owner" + id + "', 100)");
            }
        }
    }

    static MariaDbServer shard() {
        return MariaDbServer.builder()
                .database(SCHEMA)
                .user(BACKEND_USER, BACKEND_PASSWORD)
                .innodbBufferPoolSize("64M")
                .start();
    }

    @AfterAll
    static void stop() {
        if (router != null) {
            router.close();
        }
        for (MariaDbServer shard : new MariaDbServer[] {shard10, shard20}) {
            if (shard != null) {
                shard.close();
            }
        }
    }

    static Stream<Arguments> clients() {
        return Stream.of(Driver.values())
                .flatMap(driver -> Stream.of(Mode.values()).map(mode -> Arguments.of(driver, mode)));
    }

    static Connection proxied(Driver driver, Mode mode) throws SQLException {
        Map<String, String> options = new HashMap<>(mode.properties());
        options.put("socketTimeout", "120000");
        return driver.connect(router.mysqlPort(), SCHEMA, USER, PASSWORD, options);
    }

    static Connection direct(MariaDbServer shard) throws SQLException {
        return Driver.MARIADB.connect(shard.port(), SCHEMA, BACKEND_USER, BACKEND_PASSWORD);
    }

    /** Every row of a result as strings, with the column labels first. */
    static List<List<String>> rows(ResultSet rs) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        ResultSetMetaData meta = rs.getMetaData();
        List<String> labels = new ArrayList<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
            labels.add(meta.getColumnLabel(i) + ":" + meta.getColumnTypeName(i));
        }
        out.add(labels);
        while (rs.next()) {
            List<String> row = new ArrayList<>();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                row.add(rs.getString(i));
            }
            out.add(row);
        }
        return out;
    }

    static List<List<String>> query(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rows(rs);
            }
        }
    }

    static void execute(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            ps.execute();
        }
    }

    /**
     * How many times the shard has executed a statement whose text starts with {@code prefix} (a cache hit
     * adds none). Counted in the shard's general log, not by Com_select: the router's health probe
     * ({@code SELECT @@read_only}) runs SELECTs on its own schedule, and one landing inside a measured
     * window made the global counter off by one.
     */
    static long executions(MariaDbServer shard, String prefix) throws SQLException {
        try (Connection c = direct(shard);
                PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM mysql.general_log"
                        + " WHERE command_type IN ('Query', 'Execute') AND LEFT(argument, ?) = ?")) {
            ps.setInt(1, prefix.length());
            ps.setString(2, prefix);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static CacheStats stats() {
        return router.resultCache().control().stats();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clients")
    void cachedAnswersEqualTheBackendsAndHitsSkipIt(Driver driver, Mode mode) throws Exception {
        router.resultCache().control().purgeAll();
        String sql = "SELECT id, name, price, seen FROM items WHERE id BETWEEN ? AND ? ORDER BY id";
        try (Connection proxied = proxied(driver, mode);
                Connection direct =
                        driver.connect(shard10.port(), SCHEMA, BACKEND_USER, BACKEND_PASSWORD, mode.properties())) {
            List<List<List<String>>> expected = new ArrayList<>();
            for (int i = 1; i <= 10; i++) {
                expected.add(query(direct, sql, i, i + 3));
                assertThat(query(proxied, sql, i, i + 3)).isEqualTo(expected.get(i - 1));
            }
            CacheStats before = stats();
            String prefix = sql.substring(0, sql.indexOf(" WHERE"));
            long selects = executions(shard10, prefix) + executions(shard20, prefix);
            for (int round = 0; round < 3; round++) {
                for (int i = 1; i <= 10; i++) {
                    assertThat(query(proxied, sql, i, i + 3)).isEqualTo(expected.get(i - 1));
                }
            }
            assertThat(executions(shard10, prefix) + executions(shard20, prefix))
                    .as("SELECTs the shards ran")
                    .isEqualTo(selects);
            assertThat(stats().hits() - before.hits()).isEqualTo(30);
            assertThat(stats().misses()).isEqualTo(before.misses());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clients")
    void aWriteThroughTheRouterIsSeenByTheNextRead(Driver driver, Mode mode) throws Exception {
        int id = 20 + Clients.ordinal(driver, mode);
        String read = "SELECT name, price FROM items WHERE id = ?";
        try (Connection c = proxied(driver, mode);
                Connection other = proxied(driver, mode)) {
            assertThat(query(c, read, id)).isEqualTo(query(c, read, id)); // filled, then a hit
            CacheStats filled = stats();
            execute(c, "UPDATE items SET name = ? WHERE id = ?", "renamed " + id, id);
            assertThat(query(c, read, id).get(1).get(0)).isEqualTo("renamed " + id);
            assertThat(query(other, read, id).get(1).get(0)).isEqualTo("renamed " + id);
            assertThat(stats().invalidations()).isGreaterThan(filled.invalidations());

            // in a transaction: others see the old value until COMMIT, everyone the new one after it
            c.setAutoCommit(false);
            execute(c, "UPDATE items SET name = ? WHERE id = ?", "in tx " + id, id);
            assertThat(query(c, read, id).get(1).get(0)).isEqualTo("in tx " + id); // never from the cache
            assertThat(query(other, read, id).get(1).get(0)).isEqualTo("renamed " + id);
            c.commit();
            c.setAutoCommit(true);
            assertThat(query(other, read, id).get(1).get(0)).isEqualTo("in tx " + id);

            // ROLLBACK: the stored result stays right
            c.setAutoCommit(false);
            execute(c, "UPDATE items SET name = ? WHERE id = ?", "rolled back " + id, id);
            c.rollback();
            c.setAutoCommit(true);
            assertThat(query(other, read, id).get(1).get(0)).isEqualTo("in tx " + id);
            assertThat(query(c, read, id).get(1).get(0)).isEqualTo("in tx " + id);
        }
    }

    @Test
    void aWriteStraightToTheBackendShowsAfterTheTtl() throws Exception {
        try (Connection c = proxied(Driver.MARIADB, Mode.TEXT);
                Connection backend = direct(shard10)) {
            String read = "SELECT n FROM ticks WHERE id = 1";
            String before = query(c, read).get(1).get(0);
            execute(backend, "UPDATE ticks SET n = n + 1 WHERE id = 1");
            String after = String.valueOf(Integer.parseInt(before) + 1);
            long deadline = System.nanoTime() + 60_000_000_000L;
            String seen = before;
            while (!seen.equals(after) && System.nanoTime() < deadline) {
                seen = query(c, read).get(1).get(0);
                Thread.sleep(20);
            }
            assertThat(seen).isEqualTo(after);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clients")
    void theJavaApiPurgesByTableSchemaRuleAndAll(Driver driver, Mode mode) throws Exception {
        int id = 30 + Clients.ordinal(driver, mode);
        String read = "SELECT name FROM items WHERE id = ?";
        try (Connection c = proxied(driver, mode);
                Connection backend = direct(shard10)) {
            List<Runnable> purges = List.of(
                    () -> router.resultCache().control().purgeTable(SCHEMA, "items"),
                    () -> router.resultCache().control().purgeSchema(SCHEMA),
                    () -> router.resultCache().control().purgeRule(0),
                    () -> router.resultCache().control().purgeAll());
            int n = 0;
            for (Runnable purge : purges) {
                query(c, read, id);
                String value = "direct " + id + " " + n++;
                execute(backend, "UPDATE items SET name = ? WHERE id = ?", value, id);
                assertThat(query(c, read, id).get(1).get(0))
                        .as("a 10 minute TTL: the stored result is served")
                        .isNotEqualTo(value);
                purge.run();
                assertThat(query(c, read, id).get(1).get(0)).isEqualTo(value);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clients")
    void hintsBypassOrRefreshTheStoredResult(Driver driver, Mode mode) throws Exception {
        int id = 35 + Clients.ordinal(driver, mode);
        String read = "SELECT name FROM items WHERE id = ?";
        try (Connection c = proxied(driver, mode);
                Connection backend = direct(shard10)) {
            String stored = query(c, read, id).get(1).get(0);
            execute(backend, "UPDATE items SET name = ? WHERE id = ?", "hinted " + id, id);
            assertThat(query(c, "/*nocache*/ " + read, id).get(1).get(0)).isEqualTo("hinted " + id);
            assertThat(query(c, read, id).get(1).get(0))
                    .as("still the stored result")
                    .isEqualTo(stored);
            assertThat(query(c, "/*refresh*/ " + read, id).get(1).get(0)).isEqualTo("hinted " + id);
            assertThat(query(c, read, id).get(1).get(0)).as("replaced").isEqualTo("hinted " + id);
            execute(backend, "UPDATE items SET name = ? WHERE id = ?", "wiped " + id, id);
            assertThat(query(c, "/*wipe*/ " + read, id).get(1).get(0)).isEqualTo("wiped " + id);
            assertThat(query(c, read, id).get(1).get(0)).isEqualTo("wiped " + id);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clients")
    void nothingIsCachedInATransactionForUpdateOrForNow(Driver driver, Mode mode) throws Exception {
        try (Connection c = proxied(driver, mode)) {
            CacheStats before = stats();
            c.setAutoCommit(false);
            for (int i = 0; i < 3; i++) {
                query(c, "SELECT name FROM items WHERE id = ?", 1);
            }
            c.commit();
            c.setAutoCommit(true);
            for (int i = 0; i < 3; i++) {
                query(c, "SELECT name FROM items WHERE id = ? FOR UPDATE", 2);
            }
            List<String> nows = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                nows.add(query(c, "SELECT NOW(6) FROM items WHERE id = ?", 3)
                        .get(1)
                        .get(0));
                Thread.sleep(2);
            }
            assertThat(nows).doesNotHaveDuplicates();
            CacheStats after = stats();
            assertThat(after.hits()).isEqualTo(before.hits());
            assertThat(after.misses()).isEqualTo(before.misses());
            assertThat(after.stores()).isEqualTo(before.stores());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clients")
    void aResultLargerThanMaxEntryBytesIsNotCached(Driver driver, Mode mode) throws Exception {
        router.resultCache().control().purgeAll();
        String read = "SELECT id, body FROM blobs WHERE id = ?";
        try (Connection c = proxied(driver, mode);
                Connection d =
                        driver.connect(shard10.port(), SCHEMA, BACKEND_USER, BACKEND_PASSWORD, mode.properties())) {
            CacheStats before = stats();
            for (int i = 0; i < 3; i++) {
                assertThat(query(c, read, 2)).isEqualTo(query(d, read, 2));
            }
            CacheStats after = stats();
            assertThat(after.hits()).isEqualTo(before.hits());
            assertThat(after.misses() - before.misses()).isEqualTo(3);
            assertThat(after.rejected() - before.rejected()).isEqualTo(3);
            // the small one is stored and served
            query(c, read, 1);
            assertThat(query(c, read, 1)).isEqualTo(query(d, read, 1));
            assertThat(stats().hits()).isEqualTo(after.hits() + 1);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clients")
    void aMergedScatterReadIsCachedAndAWriteOnOneShardInvalidatesIt(Driver driver, Mode mode) throws Exception {
        String sum = "SELECT COUNT(*) AS n, SUM(balance) AS total FROM accounts WHERE balance >= ?";
        String owners = "SELECT id, owner FROM accounts WHERE id IN (1, 2, 3, 4, 5, 6) ORDER BY id";
        try (Connection c = proxied(driver, mode)) {
            List<List<String>> first = query(c, sum, 0);
            List<List<String>> ordered = query(c, owners);
            long hits = stats().hits();
            assertThat(query(c, sum, 0)).isEqualTo(first);
            assertThat(query(c, owners)).isEqualTo(ordered);
            assertThat(stats().hits()).isEqualTo(hits + 2);
            long total = Long.parseLong(first.get(1).get(1));

            int id = 1 + Clients.ordinal(driver, mode) * 3;
            execute(c, "UPDATE accounts SET balance = balance + 7 WHERE id = ?", id);
            assertThat(Long.parseLong(query(c, sum, 0).get(1).get(1))).isEqualTo(total + 7);

            // a write without the key runs on both shards; its merged OK invalidates too
            query(c, owners);
            execute(c, "UPDATE accounts SET owner = CONCAT(owner, ?) WHERE balance >= ?", "+", 0);
            List<List<String>> renamed = query(c, owners);
            assertThat(renamed.get(1).get(1)).isEqualTo(ordered.get(1).get(1) + "+");
            assertThat(renamed).hasSize(ordered.size());

            // ... before its OK reaches the client: another client's read right after the OK (on
            // another event loop, maybe) sees the write
            try (Connection d = proxied(driver, mode)) {
                List<List<String>> before = query(d, sum, 0);
                long rows = Long.parseLong(before.get(1).get(0));
                long expected = Long.parseLong(before.get(1).get(1));
                for (int i = 0; i < 10; i++) {
                    assertThat(query(d, sum, 0).get(1).get(1)).isEqualTo(String.valueOf(expected)); // stored
                    execute(c, "UPDATE accounts SET balance = balance + 1 WHERE balance >= ?", 0);
                    expected += rows;
                    assertThat(query(d, sum, 0).get(1).get(1)).as("write %d", i).isEqualTo(String.valueOf(expected));
                    // a single-shard write: its OK is relayed from the shard
                    execute(c, "UPDATE accounts SET balance = balance + 1 WHERE id = ?", id);
                    expected += 1;
                    assertThat(query(d, sum, 0).get(1).get(1))
                            .as("single-shard write %d", i)
                            .isEqualTo(String.valueOf(expected));
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clients")
    void concurrentMissesOfOneKeyRunOneBackendQuery(Driver driver, Mode mode) throws Exception {
        int readers = 8;
        String sql = "SELECT COUNT(*), SUM(a.id + b.id + c.id) FROM items a, items b, items c WHERE a.id >= ?";
        int key = 1 + Clients.ordinal(driver, mode); // a key no other test reads
        List<Connection> connections = new ArrayList<>();
        List<PreparedStatement> statements = new ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(readers);
        try {
            for (int i = 0; i < readers; i++) {
                Connection c = proxied(driver, mode);
                connections.add(c);
                PreparedStatement ps = c.prepareStatement(sql);
                ps.setInt(1, key);
                statements.add(ps);
            }
            CacheStats before = stats();
            String prefix = sql.substring(0, sql.indexOf(" WHERE"));
            long selects = executions(shard10, prefix);
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(readers);
            List<java.util.concurrent.Future<List<List<String>>>> results = new ArrayList<>();
            for (PreparedStatement ps : statements) {
                results.add(pool.submit(() -> {
                    start.await();
                    try (ResultSet rs = ps.executeQuery()) {
                        return rows(rs);
                    }
                }));
            }
            List<List<String>> first = results.get(0).get();
            for (java.util.concurrent.Future<List<List<String>>> r : results) {
                assertThat(r.get()).isEqualTo(first);
            }
            CacheStats after = stats();
            assertThat(after.misses() - before.misses()).as("one fill").isEqualTo(1);
            assertThat(after.hits() + after.waits() - before.hits() - before.waits())
                    .as("the others answered by it")
                    .isEqualTo(readers - 1);
            assertThat(executions(shard10, prefix) - selects)
                    .as("SELECTs the shard ran")
                    .isEqualTo(1);
            try (Connection d = direct(shard10)) {
                assertThat(first).isEqualTo(query(d, sql, key));
            }
        } finally {
            pool.shutdownNow();
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    @Test
    void sixtyFourThreadsReadOnlyStatesTheBackendHad() throws Exception {
        new ConcurrencyCheck(ResultCacheIT::proxied).run();
    }

    /** The (driver, mode) pairs numbered, to keep their rows apart. */
    static final class Clients {
        static int ordinal(Driver driver, Mode mode) {
            return driver.ordinal() * Mode.values().length + mode.ordinal();
        }
    }
}
