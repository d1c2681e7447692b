package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shardgate.it.Driver;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A session's sql_mode that reads statement text otherwise than the router (ANSI_QUOTES,
 * NO_BACKSLASH_ESCAPES) on two real MariaDB shards: before, {@code ORDER BY "total"} under
 * ANSI_QUOTES was merged as a sort by a constant (rows out of order, silently) and {@code SELECT *
 * FROM "orders"} went to one shard. Now such statements are refused with 1235 naming the mode, the
 * same statements with backticks give MariaDB's answer, and a session whose mode reads text as the
 * router does (the default, or modes set by name or added with CONCAT) is not affected.
 */
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class SqlModeIT {
    @TempDir
    static Path dataDir;

    private static ShardedCluster cluster;
    /** Every row's id, by total descending then id: the answer of the ORDER BY below. */
    private static final List<Long> BY_TOTAL = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShardedCluster(
                dataDir,
                "modes",
                2,
                List.of(
                        "{name: orders, strategy: hash, column: id, buckets: 8, hostgroups: {10: \"0-3\", 20: \"4-7\"}}"),
                List.of());
        cluster.onEveryShard("CREATE TABLE orders (id INT PRIMARY KEY, total DECIMAL(10,2), note VARCHAR(20))");
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            for (int id = 1; id <= 20; id++) {
                s.execute("INSERT INTO orders (id, total, note) VALUES (" + id + ", " + ((id * 37) % 23) + ".50, 'n"
                        + id + "')");
            }
        }
        for (int hostgroup : new int[] {10, 20}) {
            try (Connection c = cluster.direct(hostgroup);
                    Statement s = c.createStatement()) {
                assertThat(ids(s, "SELECT id FROM orders"))
                        .as("both shards hold rows")
                        .isNotEmpty();
            }
        }
        try (Connection c = cluster.direct(10);
                Statement s = c.createStatement()) {
            // the expected order, computed by one server over a copy of every row
            s.execute("CREATE TEMPORARY TABLE everything (id INT PRIMARY KEY, total DECIMAL(10,2))");
            for (int id = 1; id <= 20; id++) {
                s.execute("INSERT INTO everything VALUES (" + id + ", " + ((id * 37) % 23) + ".50)");
            }
            BY_TOTAL.addAll(ids(s, "SELECT id FROM everything ORDER BY total DESC, id"));
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static List<Long> ids(Statement s, String sql) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    private static SQLException refused(Statement s, String sql) {
        return refused(() -> s.executeQuery(sql), sql);
    }

    private static SQLException refused(ThrowingCallable run, String sql) {
        SQLException e = catchThrowableOfType(run, SQLException.class);
        assertThat((Throwable) e).as(sql).isNotNull();
        assertThat(e.getErrorCode()).as(sql).isEqualTo(1235);
        return e;
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void doubleQuotedNamesUnderAnsiQuotesAreRefusedAndBackticksAnswered(Driver driver) throws Exception {
        try (Connection c = cluster.proxied(driver);
                Statement s = c.createStatement()) {
            s.execute("SET sql_mode = 'ANSI_QUOTES'");
            assertThat(refused(s, "SELECT id, \"total\" FROM orders ORDER BY \"total\" DESC, id")
                            .getMessage())
                    .contains("ANSI_QUOTES");
            refused(s, "SELECT COUNT(*) FROM \"orders\""); // was one shard's count
            refused(s, "SELECT id, \"total\" FROM orders ORDER BY \"total\" DESC LIMIT 5"); // was out of order
            refused(s, "SELECT id FROM orders WHERE id = \"id\"");
            assertThat(ids(s, "SELECT id, `total` FROM orders ORDER BY `total` DESC, id"))
                    .isEqualTo(BY_TOTAL);
            try (PreparedStatement p = c.prepareStatement("SELECT id FROM orders WHERE \"id\" = ?")) {
                p.setInt(1, 3);
                refused(p::executeQuery, "prepared WHERE \"id\" = ?");
            }
            s.execute("SET sql_mode = DEFAULT");
            // a double-quoted string again
            assertThat(ids(s, "SELECT id FROM orders WHERE note = \"n4\"")).containsExactly(4L);
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void serverPreparedStatementsUnderAnsiQuotes(Driver driver) throws Exception {
        try (Connection c = cluster.proxied(driver, Map.of("useServerPrepStmts", "true"));
                Statement s = c.createStatement()) {
            s.execute("SET sql_mode = 'ANSI'");
            refused(
                    () -> c.prepareStatement("SELECT id FROM orders ORDER BY \"total\"")
                            .executeQuery(),
                    "prepared ORDER BY \"total\"");
            try (PreparedStatement p =
                    c.prepareStatement("SELECT id FROM orders WHERE `total` > ? ORDER BY `total` DESC, id")) {
                p.setInt(1, -1);
                List<Long> out = new ArrayList<>();
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getLong(1));
                    }
                }
                assertThat(out).isEqualTo(BY_TOTAL);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void backslashesUnderNoBackslashEscapesAreRefused(Driver driver) throws Exception {
        try (Connection c = cluster.proxied(driver);
                Statement s = c.createStatement()) {
            s.execute("SET sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')");
            // MariaDB reads: id = 5 AND note = 'a\' OR id = 7 -- the router read one long string
            assertThat(refused(s, "SELECT id FROM orders WHERE id = 5 AND note = 'a\\' OR id = 7 -- '")
                            .getMessage())
                    .contains("NO_BACKSLASH_ESCAPES");
            assertThat(ids(s, "SELECT id FROM orders WHERE id = 5 OR id = 7 ORDER BY id"))
                    .containsExactly(5L, 7L);
        }
    }

    /**
     * A server whose global sql_mode has ANSI_QUOTES (set directly, not through the router): the
     * monitor's check reads it, and sessions that never set sql_mode get the refusal too. Runs last
     * (it changes the shards' global mode, then restores it).
     */
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Order(Integer.MAX_VALUE)
    void aServersGlobalModeCounts() throws Exception {
        String before;
        try (Connection c = cluster.direct(20);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@global.sql_mode")) {
            rs.next();
            before = rs.getString(1);
        }
        try {
            cluster.onShard(20, "SET GLOBAL sql_mode = CONCAT(@@global.sql_mode, ',ANSI_QUOTES')");
            try (Connection c = cluster.proxied(Driver.MARIADB);
                    Statement s = c.createStatement()) {
                // the monitor reads it within its interval (2 s); a liveness bound, not a speed check
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
                SQLException refused = null;
                while (refused == null) {
                    assertThat(System.nanoTime()).as("refused within 60 s").isLessThan(deadline);
                    try {
                        s.executeQuery("SELECT COUNT(*) FROM \"orders\"").close();
                    } catch (SQLException e) {
                        // until the monitor's next check: hostgroup 10's server reads "orders" as a string (1064)
                        refused = e.getErrorCode() == 1235 ? e : null;
                    }
                    if (refused == null) {
                        Thread.sleep(100);
                    }
                }
                assertThat(refused.getErrorCode()).isEqualTo(1235);
                assertThat(refused.getMessage()).contains("ANSI_QUOTES");
                assertThat(ids(s, "SELECT id FROM orders WHERE id = 3")).containsExactly(3L);
            }
        } finally {
            cluster.onShard(20, "SET GLOBAL sql_mode = '" + before + "'");
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void aModeTheRouterCannotReadRefusesOnlyWhatItCouldReadOtherwise(Driver driver) throws Exception {
        try (Connection c = cluster.proxied(driver);
                Statement s = c.createStatement()) {
            // an expression the router does not evaluate (it replays it on each shard's connection)
            s.execute("SET sql_mode = CONCAT(@@sql_mode, UPPER(',ansi_quotes'))");
            refused(s, "SELECT id FROM orders ORDER BY \"total\"");
            assertThat(ids(s, "SELECT id FROM orders ORDER BY total DESC, id")).isEqualTo(BY_TOTAL);
        }
    }
}
