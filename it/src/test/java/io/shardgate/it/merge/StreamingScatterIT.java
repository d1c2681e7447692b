package io.shardgate.it.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The streamed merge through the real router: table {@code big} holds {@value #ROWS} rows of about
 * 130 bytes (some 26 MB of result) range-sharded over three real MariaDB servers, and the router may
 * hold only {@value #MAX_MERGE_BYTES} bytes per merge. ORDER BY, plain scatters and prepared
 * statements over the whole table still succeed (so rows cannot have been buffered), an OFFSET that
 * ends the answer long before the shards do leaves every connection clean for the next statements
 * (in a transaction too), a grouped merge holds its groups, not the rows (1000 groups merge, a group
 * per row does not), a merge whose state exceeds the limit fails with ER_OUT_OF_RESOURCES instead,
 * a client that leaves in the middle leaves the router working, and HAVING, COUNT(DISTINCT) and
 * ORDER BY a position answer through the router as the data says, in text and binary protocol.
 */
class StreamingScatterIT {
    private static final String SCHEMA = "shop";
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final String BACKEND_USER = "shardgate";
    private static final String BACKEND_PASSWORD = "sg-secret";
    private static final int ROWS = 200_000;
    // each group also keeps the two collation-weight cells of its key (issue 18): 1000 groups on 3
    // shards fit in this, the 200,000 rows (26 MB) and 200,000 distinct pads do not
    private static final int MAX_MERGE_BYTES = 384 * 1024;
    /** k spreads rows of every shard over the whole sort order, so the k-way merge interleaves them. */
    private static final String K = "(id * 7919) % 1000";

    @TempDir
    static Path dataDir;

    private static final List<MariaDbServer> shards = new ArrayList<>();
    private static Shardgate router;

    @BeforeAll
    static void start() throws Exception {
        for (int i = 0; i < 3; i++) {
            shards.add(MariaDbServer.builder()
                    .database(SCHEMA)
                    .user(BACKEND_USER, BACKEND_PASSWORD)
                    .innodbBufferPoolSize("64M")
                    .start());
        }
        int third = ROWS / 3;
        List<String> yaml = new ArrayList<>(List.of(
                "server: {bind: 127.0.0.1, port: 0, http_port: 0, max_merge_bytes: " + MAX_MERGE_BYTES
                        + ", data_dir: \"" + Files.createDirectories(dataDir.resolve("router")) + "\"}",
                "users: [{name: " + USER + ", password: " + PASSWORD + "}]",
                "hostgroups:"));
        for (int i = 0; i < 3; i++) {
            yaml.add("  - {id: " + (i + 1) * 10 + ", writer: \"" + shards.get(i).address() + "\", user: " + BACKEND_USER
                    + ", password: " + BACKEND_PASSWORD + "}");
        }
        yaml.addAll(List.of(
                "schemas:",
                "  - name: " + SCHEMA,
                "    default_hostgroup: 10",
                "    tables:",
                "      - {name: big, strategy: range, column: id, ranges: [{below: " + (third + 1)
                        + ", hostgroup: 10}, {below: " + (2 * third + 1) + ", hostgroup: 20}, {hostgroup: 30}]}",
                ""));
        router = Shardgate.start(RouterConfig.parse(String.join("\n", yaml)));
        // each shard gets exactly the id range its rule names, loaded on the shard itself
        long[] from = {1, third + 1, 2L * third + 1};
        long[] to = {third, 2L * third, ROWS};
        for (int i = 0; i < 3; i++) {
            try (Connection c = Driver.MARIADB.connect(shards.get(i).port(), SCHEMA, BACKEND_USER, BACKEND_PASSWORD);
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE big (id INT PRIMARY KEY, k INT NOT NULL, pad CHAR(120) NOT NULL)");
                s.execute("INSERT INTO big SELECT seq, " + K.replace("id", "seq") + ", RPAD(CONCAT('row ', seq), 120,"
                        + " '.') FROM seq_" + from[i] + "_to_" + to[i]);
            }
        }
    }

    @AfterAll
    static void stop() {
        if (router != null) {
            router.close();
        }
        shards.forEach(MariaDbServer::close);
    }

    private static Connection proxied(Map<String, String> options) throws SQLException {
        Map<String, String> all = new java.util.HashMap<>(Map.of("socketTimeout", "120000"));
        all.putAll(options);
        return Driver.MARIADB.connect(router.mysqlPort(), SCHEMA, USER, PASSWORD, all);
    }

    @Test
    void orderByOverEveryRowMergesWithinMaxMergeBytes() throws SQLException {
        try (Connection c = proxied(Map.of());
                Statement s = c.createStatement()) {
            s.setFetchSize(1000); // the driver streams too: neither side holds the result
            long rows = 0;
            long idSum = 0;
            int lastK = -1;
            int lastId = -1;
            try (ResultSet rs = s.executeQuery("SELECT id, k, pad FROM big ORDER BY k, id")) {
                while (rs.next()) {
                    int id = rs.getInt(1);
                    int k = rs.getInt(2);
                    assertThat(k > lastK || (k == lastK && id > lastId))
                            .as("row %d (k %d, id %d) after (k %d, id %d)", rows, k, id, lastK, lastId)
                            .isTrue();
                    assertThat(rs.getString(3)).startsWith("row " + id + ".");
                    lastK = k;
                    lastId = id;
                    idSum += id;
                    rows++;
                }
            }
            assertThat(rows).isEqualTo(ROWS);
            assertThat(idSum).isEqualTo((long) ROWS * (ROWS + 1) / 2);
        }
    }

    @Test
    void aScatterWithoutOrderByReturnsEveryRowOnce() throws SQLException {
        try (Connection c = proxied(Map.of());
                Statement s = c.createStatement()) {
            s.setFetchSize(1000);
            boolean[] seen = new boolean[ROWS + 1];
            long rows = 0;
            try (ResultSet rs = s.executeQuery("SELECT id, pad FROM big")) {
                while (rs.next()) {
                    int id = rs.getInt(1);
                    assertThat(seen[id]).as("id %d twice", id).isFalse();
                    seen[id] = true;
                    rows++;
                }
            }
            assertThat(rows).isEqualTo(ROWS);
        }
    }

    @Test
    void preparedStatementsStreamBinaryRows() throws SQLException {
        try (Connection c = proxied(Map.of("useServerPrepStmts", "true"));
                PreparedStatement p = c.prepareStatement("SELECT id, pad FROM big WHERE id > ? ORDER BY pad DESC")) {
            p.setInt(1, 1000);
            p.setFetchSize(1000);
            long rows = 0;
            String last = null;
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String pad = rs.getString(2);
                    assertThat(last == null || last.compareTo(pad) >= 0)
                            .as("%s after %s", pad, last)
                            .isTrue();
                    last = pad;
                    rows++;
                }
            }
            assertThat(rows).isEqualTo(ROWS - 1000);
        }
    }

    @Test
    void anOffsetEndsTheAnswerEarlyAndLeavesTheConnectionsClean() throws SQLException {
        try (Connection c = proxied(Map.of());
                Statement s = c.createStatement()) {
            // every shard is asked for 100010 rows; the answer is complete long before they are all read
            for (int round = 0; round < 3; round++) {
                List<Integer> ids = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT id FROM big ORDER BY id LIMIT 100000, 10")) {
                    while (rs.next()) {
                        ids.add(rs.getInt(1));
                    }
                }
                assertThat(ids)
                        .containsExactly(
                                100001, 100002, 100003, 100004, 100005, 100006, 100007, 100008, 100009, 100010);
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(k) FROM big")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isEqualTo(ROWS);
                }
            }
            // inside a transaction the rest is read, not cut off: the transaction stays intact
            c.setAutoCommit(false);
            try (ResultSet rs = s.executeQuery("SELECT id FROM big ORDER BY id DESC LIMIT 150000, 2")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(50000);
            }
            assertThat(s.executeUpdate("UPDATE big SET pad = 'changed' WHERE id IN (1, 199999)"))
                    .isEqualTo(2);
            c.rollback();
            c.setAutoCommit(true);
            try (ResultSet rs = s.executeQuery("SELECT id, pad FROM big WHERE id IN (1, 199999) ORDER BY id")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(2)).as("rolled back on the first shard").startsWith("row 1.");
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(2)).as("rolled back on the last shard").startsWith("row 199999.");
            }
        }
    }

    @Test
    void aMergeThatNeedsWholeResultsBeyondTheLimitFailsWithOutOfResources() throws SQLException {
        try (Connection c = proxied(Map.of());
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.executeQuery("SELECT DISTINCT pad FROM big"))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(1041);
                        assertThat(e.getMessage()).contains("server.max_merge_bytes (" + MAX_MERGE_BYTES + " bytes)");
                    });
            // the session and its connections go on
            try (ResultSet rs = s.executeQuery("SELECT k, COUNT(*) FROM big GROUP BY k ORDER BY k LIMIT 2")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isZero();
                assertThat(rs.getLong(2)).isEqualTo(ROWS / 1000);
            }
        }
    }

    @Test
    void groupsFoldAsTheShardsRowsArriveSoTheLimitBoundsTheGroupsNotTheRows() throws SQLException {
        try (Connection c = proxied(Map.of());
                Statement s = c.createStatement()) {
            // 1000 groups of 200 rows (k = id * 7919 % 1000 takes every value as often)
            long groups = 0;
            long idSum = 0;
            try (ResultSet rs = s.executeQuery("SELECT k, COUNT(*), SUM(id) FROM big GROUP BY k")) {
                int lastK = -1;
                while (rs.next()) {
                    assertThat(rs.getInt(1)).as("sorted by the group key").isGreaterThan(lastK);
                    lastK = rs.getInt(1);
                    assertThat(rs.getLong(2)).isEqualTo(ROWS / 1000);
                    idSum += rs.getLong(3);
                    groups++;
                }
            }
            assertThat(groups).isEqualTo(1000);
            assertThat(idSum).isEqualTo((long) ROWS * (ROWS + 1) / 2);
            // every row its own group (pad is unique; not the key, so groups may span shards): the
            // groups themselves exceed max_merge_bytes
            assertThatThrownBy(() -> s.executeQuery("SELECT pad, COUNT(*), SUM(k) FROM big GROUP BY pad"))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(1041);
                        assertThat(e.getMessage()).contains("server.max_merge_bytes (" + MAX_MERGE_BYTES + " bytes)");
                    });
        }
        // the binary protocol folds the same way, and the session goes on after a 1041
        try (Connection c = proxied(Map.of("useServerPrepStmts", "true"));
                java.sql.PreparedStatement p =
                        c.prepareStatement("SELECT k % 10 AS g, COUNT(*), SUM(id) FROM big WHERE id > ? GROUP BY g")) {
            p.setInt(1, 0);
            long rows = 0;
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    assertThat(rs.getInt(1)).isEqualTo((int) rows);
                    assertThat(rs.getLong(2)).isEqualTo(ROWS / 10);
                    rows++;
                }
            }
            assertThat(rows).isEqualTo(10);
        }
    }

    @Test
    void havingDistinctAggregatesAndOrderByPositionThroughTheRouter() throws SQLException {
        // expected from the data's definition: ids 97, 194, ..., k = id * 7919 % 1000
        java.util.TreeMap<Long, long[]> groups = new java.util.TreeMap<>();
        Map<Long, java.util.Set<Long>> ks = new java.util.HashMap<>();
        for (long id = 97; id <= ROWS; id += 97) {
            long k = (id * 7919) % 1000;
            long[] g = groups.computeIfAbsent(k % 13, x -> new long[2]);
            g[0]++;
            g[1] += id;
            ks.computeIfAbsent(k % 13, x -> new java.util.HashSet<>()).add(k);
        }
        List<String> expected = new ArrayList<>();
        groups.forEach((g, v) -> {
            if (v[0] >= 160) {
                expected.add(g + " " + ks.get(g).size() + " " + v[1]);
            }
        });
        assertThat(expected)
                .as("the HAVING keeps some groups, not all")
                .isNotEmpty()
                .hasSizeLessThan(groups.size());
        String sql = "SELECT k % 13 AS g, COUNT(DISTINCT k), SUM(id) FROM big WHERE id % 97 = 0"
                + " GROUP BY g HAVING COUNT(*) >= ? ORDER BY 1";
        for (boolean binary : new boolean[] {false, true}) {
            try (Connection c = proxied(Map.of("useServerPrepStmts", String.valueOf(binary)));
                    PreparedStatement p = c.prepareStatement(sql)) {
                p.setInt(1, 160);
                List<String> got = new ArrayList<>();
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        got.add(rs.getLong(1) + " " + rs.getLong(2) + " " + rs.getLong(3));
                    }
                }
                assertThat(got).as("binary=%s", binary).isEqualTo(expected);
            }
        }
    }

    @Test
    void aClientLeavingMidMergeLeavesTheRouterWorking() throws Exception {
        for (int round = 0; round < 3; round++) {
            Connection c = proxied(Map.of());
            Statement s = c.createStatement();
            s.setFetchSize(100);
            ResultSet rs = s.executeQuery("SELECT id, k, pad FROM big ORDER BY k, id");
            for (int i = 0; i < 500; i++) {
                assertThat(rs.next()).isTrue();
            }
            c.abort(Runnable::run); // the socket closes with most rows unsent
        }
        try (Connection c = proxied(Map.of());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM big ORDER BY k DESC, id DESC LIMIT 3")) {
            List<Integer> ids = new ArrayList<>();
            while (rs.next()) {
                ids.add(rs.getInt(1));
            }
            assertThat(ids).hasSize(3);
            for (int id : ids) {
                assertThat((id * 7919L) % 1000).isEqualTo(999);
            }
        }
    }
}
