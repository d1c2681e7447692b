package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * SHOW WARNINGS, SHOW COUNT(*) WARNINGS and {@code @@warning_count} after a statement that uses no
 * table and raises nothing ({@code SELECT 1}), which in MariaDB leaves the earlier warnings in
 * place. When the earlier warnings are on another backend connection of the session (a statement
 * routed to another hostgroup), the router reads them there, as MariaDB shows them; when they are
 * nowhere the router can read (a statement that ran on several shards, a lost connection) it keeps
 * refusing with ERROR 1235 until a statement certainly replaces them, instead of answering an empty
 * list. Each script runs directly on MariaDB (the oracle, holding every row) and through the router
 * (hostgroup 10 on that server, hostgroup 20 on a second one), with both drivers, multiplexing on
 * and off.
 */
@ExtendWith(ProxyClusterExtension.class)
class DiagnosticsAcrossConnectionsIT {
    private static final String FAR_WARNING = "SELECT 1 / v FROM da_far WHERE id = 1";
    private static final String SCATTER_WARNING = "SELECT id, 1 / v FROM da_items";
    private static final List<String> READS =
            List.of("SHOW WARNINGS", "SHOW COUNT(*) WARNINGS", "SELECT @@warning_count");

    private static ProxyCluster cluster;
    private static MariaDbServer shard20;
    private static final Map<Boolean, Shardgate> ROUTERS = new HashMap<>();

    @BeforeAll
    static void start(ProxyCluster shared) throws Exception {
        cluster = shared;
        shard20 = MariaDbServer.builder()
                .database(ProxyCluster.SCHEMA)
                .user(ProxyCluster.BACKEND_USER, ProxyCluster.BACKEND_PASSWORD)
                .innodbBufferPoolSize("64M")
                .start();
        // the shared server is the oracle and hostgroup 10: it holds every row; hostgroup 20 holds
        // id 2 of da_items (no warning there) and da_far
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            tables(s);
            s.execute("INSERT INTO da_items VALUES (1, 0), (2, 1)");
            s.execute("INSERT INTO da_far VALUES (1, 0)");
            s.execute("INSERT INTO da_near VALUES (1)");
            s.execute("DROP FUNCTION IF EXISTS da_const");
            s.execute("CREATE FUNCTION da_const() RETURNS INT RETURN 7");
        }
        try (Connection c = Driver.MARIADB.connect(
                        shard20.port(), ProxyCluster.SCHEMA, ProxyCluster.BACKEND_USER, ProxyCluster.BACKEND_PASSWORD);
                Statement s = c.createStatement()) {
            tables(s);
            s.execute("INSERT INTO da_items VALUES (2, 1)");
            s.execute("INSERT INTO da_far VALUES (1, 0)");
        }
        Path dataDir = Files.createTempDirectory("shardgate-diagnostics-");
        for (boolean multiplexing : new boolean[] {true, false}) {
            Path dir = Files.createDirectories(dataDir.resolve("multiplexing-" + multiplexing));
            String pool = ", pool: {max_connections: 3, multiplexing: " + multiplexing + "}}";
            ROUTERS.put(
                    multiplexing,
                    Shardgate.start(RouterConfig.parse(String.join(
                            "\n",
                            "server: {bind: 127.0.0.1, port: 0, admin_port: 0, http_port: 0, io_threads: 1,"
                                    + " data_dir: \"" + dir + "\"}",
                            "users:",
                            "  - {name: " + ProxyCluster.APP_USER + ", password: " + ProxyCluster.APP_PASSWORD + "}",
                            "hostgroups:",
                            "  - {id: 10, writer: \"" + cluster.backend().address() + "\", user: "
                                    + ProxyCluster.BACKEND_USER + ", password: " + ProxyCluster.BACKEND_PASSWORD
                                    + pool,
                            "  - {id: 20, writer: \"" + shard20.address() + "\", user: " + ProxyCluster.BACKEND_USER
                                    + ", password: " + ProxyCluster.BACKEND_PASSWORD + pool,
                            "schemas:",
                            "  - name: " + ProxyCluster.SCHEMA,
                            "    default_hostgroup: 10",
                            "    tables:",
                            "      - {name: da_far, strategy: table, hostgroup: 20}",
                            "      - {name: da_items, strategy: hash, column: id, buckets: 2,"
                                    + " hostgroups: {10: \"0\", 20: \"1\"}}",
                            ""))));
        }
    }

    private static void tables(Statement s) throws SQLException {
        for (String table : List.of("da_items", "da_far", "da_near")) {
            s.execute("DROP TABLE IF EXISTS " + table);
        }
        s.execute("CREATE TABLE da_items (id INT PRIMARY KEY, v INT)");
        s.execute("CREATE TABLE da_far (id INT PRIMARY KEY, v INT)");
        s.execute("CREATE TABLE da_near (id INT PRIMARY KEY)");
    }

    @AfterAll
    static void stop() {
        ROUTERS.values().forEach(Shardgate::close);
        ROUTERS.clear();
        if (shard20 != null) {
            shard20.close();
        }
    }

    static Stream<Arguments> clients() {
        List<Arguments> all = new ArrayList<>();
        for (boolean multiplexing : new boolean[] {true, false}) {
            for (Driver driver : Driver.values()) {
                all.add(Arguments.of(driver, multiplexing));
            }
        }
        return all.stream();
    }

    /** Warnings held by hostgroup 20's connection outlive a SELECT 1 on hostgroup 10's, as in MariaDB. */
    @ParameterizedTest(name = "{0} multiplexing={1}")
    @MethodSource("clients")
    void warningsOnAnotherConnectionOutliveAStatementWithoutTables(Driver driver, boolean multiplexing)
            throws Exception {
        List<String> script = List.of(
                FAR_WARNING,
                "SELECT 1",
                "SHOW WARNINGS",
                "SHOW COUNT(*) WARNINGS",
                "SET @@session.sql_select_limit = DEFAULT",
                "SELECT @@warning_count",
                "SELECT 2 FROM DUAL",
                "SHOW WARNINGS",
                "SELECT COUNT(*) FROM da_near", // uses a table (on hostgroup 10): the warning is gone
                "SHOW WARNINGS",
                "SELECT @@warning_count");
        List<String> direct = play(direct(driver), script);
        List<String> viaRouter = play(proxied(driver, multiplexing), script);
        assertThat(direct)
                .as("MariaDB keeps the warning across statements without tables")
                .containsSubsequence(
                        "SHOW WARNINGS: Warning|1365|Division by 0",
                        "SHOW COUNT(*) WARNINGS: 1",
                        "SELECT @@warning_count: 1",
                        "SHOW WARNINGS: Warning|1365|Division by 0",
                        "SHOW WARNINGS: (none)",
                        "SELECT @@warning_count: 0");
        assertThat(viaRouter)
                .as("through Shardgate (%s, multiplexing=%s) vs directly", driver, multiplexing)
                .isEqualTo(direct);
    }

    /**
     * {@code @@warning_count} beside other items is no diagnostics statement: it runs where the
     * statement is routed, so it reads the counts only where they are, and is refused elsewhere.
     */
    @ParameterizedTest(name = "{0} multiplexing={1}")
    @MethodSource("clients")
    void countsBesideOtherItemsAreReadOnlyWhereTheyAre(Driver driver, boolean multiplexing) throws Exception {
        List<String> here = List.of("SELECT 1/0", "SELECT @@warning_count, 1", "SELECT @@warning_count, 2");
        List<String> direct = play(direct(driver), here);
        assertThat(direct)
                .containsExactly(
                        "SELECT 1/0: rows", "SELECT @@warning_count, 1: 1|1", "SELECT @@warning_count, 2: 1|2");
        assertThat(play(proxied(driver, multiplexing), here)).isEqualTo(direct);

        List<String> elsewhere = List.of(FAR_WARNING, "SELECT 1", "SELECT @@warning_count, 1");
        assertThat(play(direct(driver), elsewhere)).endsWith("SELECT @@warning_count, 1: 1|1");
        assertThat(play(proxied(driver, multiplexing), elsewhere)).endsWith("SELECT @@warning_count, 1: ERR 1235");

        List<String> scattered = List.of(SCATTER_WARNING, "SELECT @@warning_count, 1");
        assertThat(play(direct(driver), scattered)).endsWith("SELECT @@warning_count, 1: 1|1");
        assertThat(play(proxied(driver, multiplexing), scattered)).endsWith("SELECT @@warning_count, 1: ERR 1235");
    }

    /** A call of a stored function may empty the area unseen: the warnings elsewhere are refused, not guessed. */
    @ParameterizedTest(name = "{0} multiplexing={1}")
    @MethodSource("clients")
    void aStatementThatMayHaveEmptiedTheAreaMakesItUnknown(Driver driver, boolean multiplexing) throws Exception {
        List<String> script = List.of(FAR_WARNING, "SELECT da_const()", "SHOW WARNINGS");
        assertThat(play(direct(driver), script)).endsWith("SHOW WARNINGS: Warning|1365|Division by 0");
        assertThat(play(proxied(driver, multiplexing), script)).endsWith("SHOW WARNINGS: ERR 1235");
    }

    /**
     * After a statement on both shards, one of which raised a warning, and then SELECT 1, MariaDB
     * still shows the warning; the router cannot, and refuses until a statement that uses a table.
     */
    @ParameterizedTest(name = "{0} multiplexing={1}")
    @MethodSource("clients")
    void afterAMultiShardStatementAStatementWithoutTablesKeepsTheRefusal(Driver driver, boolean multiplexing)
            throws Exception {
        for (String read : READS) {
            List<String> script = List.of(SCATTER_WARNING, "SELECT 1", read, "SELECT COUNT(*) FROM da_near", read);
            List<String> direct = play(direct(driver), script);
            List<String> viaRouter = play(proxied(driver, multiplexing), script);
            assertThat(direct.get(2)).as("MariaDB: %s", read).isIn(shown(read));
            assertThat(viaRouter.get(0)).as("the statement ran on both shards").isEqualTo(SCATTER_WARNING + ": rows");
            assertThat(viaRouter.get(2))
                    .as("through Shardgate (%s, multiplexing=%s)", driver, multiplexing)
                    .isEqualTo(read + ": ERR 1235");
            assertThat(viaRouter.subList(3, 5))
                    .as("a statement that uses a table replaces the area")
                    .isEqualTo(direct.subList(3, 5));
        }
    }

    /**
     * The connection holding the warnings is lost after the client's statement was answered (while
     * the router asks it whether the warnings are still there): SELECT 1 does not bring them back.
     * Multiplexing on only: with it off the lost connection was the session's own server session, so
     * the router closes the client's session (see docs/connection-pool.md).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Driver.class)
    void afterALostConnectionAStatementWithoutTablesKeepsTheRefusal(Driver driver) throws Exception {
        boolean multiplexing = true;
        Path dir = Files.createTempDirectory("shardgate-diagnostics-loss-");
        try (QueryTrapProxy trap =
                        new QueryTrapProxy("127.0.0.1", cluster.backend().port());
                Shardgate router = Shardgate.start(RouterConfig.parse(String.join(
                        "\n",
                        "server: {bind: 127.0.0.1, port: 0, admin_port: 0, http_port: 0, data_dir: \"" + dir + "\"}",
                        "users:",
                        "  - {name: " + ProxyCluster.APP_USER + ", password: " + ProxyCluster.APP_PASSWORD + "}",
                        "hostgroups:",
                        "  - {id: 10, writer: \"" + trap.address() + "\", user: " + ProxyCluster.BACKEND_USER
                                + ", password: " + ProxyCluster.BACKEND_PASSWORD + ", pool: {max_connections: 1,"
                                + " multiplexing: " + multiplexing + "}, monitor: {enabled: false}}",
                        "schemas:",
                        "  - {name: " + ProxyCluster.SCHEMA + ", default_hostgroup: 10}",
                        "")))) {
            for (String read : READS) {
                List<String> direct = play(direct(driver), List.of("SELECT 1/0", "SELECT 2", "SELECT 1", read));
                assertThat(direct.get(3)).as("MariaDB: %s", read).isIn(shown(read));
                try (Connection c = driver.connect(
                        router.mysqlPort(),
                        ProxyCluster.SCHEMA,
                        ProxyCluster.APP_USER,
                        ProxyCluster.APP_PASSWORD,
                        options())) {
                    List<String> seen = new ArrayList<>();
                    seen.add(step(c, "SELECT 1/0")); // a warning: its connection holds it
                    int sprung = trap.sprung();
                    trap.arm(QueryTrapProxy.COM_QUERY, "SHOW WARNINGS LIMIT 1");
                    seen.add(step(c, "SELECT 2")); // answered; the router's question after it is cut
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (trap.sprung() == sprung && System.nanoTime() < deadline) {
                        Thread.sleep(10);
                    }
                    assertThat(trap.sprung())
                            .as("the connection holding the warning was lost")
                            .isEqualTo(sprung + 1);
                    seen.add(step(c, "SELECT 1"));
                    seen.add(step(c, read));
                    assertThat(seen)
                            .as("through Shardgate (%s, multiplexing=%s)", driver, multiplexing)
                            .containsExactly(
                                    "SELECT 1/0: rows", "SELECT 2: rows", "SELECT 1: rows", read + ": ERR 1235");
                }
            }
        }
    }

    /** What MariaDB answers {@code read} with while the area holds the one 1/0 warning. */
    private static List<String> shown(String read) {
        return List.of(read + ": Warning|1365|Division by 0", read + ": 1");
    }

    /** Runs {@code script} on {@code c} (then closes it); diagnostics statements record their rows. */
    private static List<String> play(Connection c, List<String> script) throws SQLException {
        try (c) {
            List<String> seen = new ArrayList<>();
            for (String sql : script) {
                seen.add(step(c, sql));
            }
            return seen;
        }
    }

    /** One statement: its rows if it reads diagnostics, else only whether it ran ("rows", "ok") or its error. */
    private static String step(Connection c, String sql) {
        boolean reads = sql.startsWith("SHOW") || sql.contains("@@warning_count");
        try (Statement s = c.createStatement()) {
            if (!s.execute(sql)) {
                return sql + ": ok";
            }
            try (ResultSet rs = s.getResultSet()) {
                List<String> rows = new ArrayList<>();
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int i = 1; i <= columns; i++) {
                        row.append(i > 1 ? "|" : "").append(rs.getString(i));
                    }
                    rows.add(row.toString());
                }
                if (!reads) {
                    return sql + ": rows";
                }
                return sql + ": " + (rows.isEmpty() ? "(none)" : String.join("; ", rows));
            }
        } catch (SQLException e) {
            return sql + ": ERR " + e.getErrorCode();
        }
    }

    private static Map<String, String> options() {
        return Map.of("connectTimeout", "30000", "socketTimeout", "60000");
    }

    private static Connection direct(Driver driver) throws SQLException {
        return driver.connect(
                cluster.backend().port(),
                ProxyCluster.SCHEMA,
                ProxyCluster.BACKEND_USER,
                ProxyCluster.BACKEND_PASSWORD,
                options());
    }

    private static Connection proxied(Driver driver, boolean multiplexing) throws SQLException {
        return driver.connect(
                ROUTERS.get(multiplexing).mysqlPort(),
                ProxyCluster.SCHEMA,
                ProxyCluster.APP_USER,
                ProxyCluster.APP_PASSWORD,
                options());
    }
}
