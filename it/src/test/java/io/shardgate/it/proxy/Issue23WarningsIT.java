package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 23: warnings stay with the statement that raised them. Session A runs statements that
 * raise warnings, notes or errors; session B, another client of the same router, raises other
 * warnings in between (under multiplexing it may get A's pooled connection); then A reads its
 * diagnostics with SHOW WARNINGS, SHOW ERRORS, SHOW COUNT(*) WARNINGS, {@code @@warning_count},
 * GET DIAGNOSTICS and the drivers' {@code getWarnings()}. Everything A sees through the router
 * equals what the same two sessions see directly on MariaDB, multiplexing on and off.
 */
@ExtendWith(ProxyClusterExtension.class)
class Issue23WarningsIT {
    private static ProxyCluster cluster;
    private static final Map<Boolean, Shardgate> ROUTERS = new HashMap<>();

    @BeforeAll
    static void startRouters(ProxyCluster shared) throws Exception {
        cluster = shared;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS iw_items");
            s.execute("CREATE TABLE iw_items (id INT PRIMARY KEY, v TINYINT)");
            s.execute("DROP PROCEDURE IF EXISTS iw_echo");
            s.execute("CREATE PROCEDURE iw_echo(y CHAR(3)) SELECT y");
        }
        Path dataDir = Files.createTempDirectory("shardgate-issue23-warnings-");
        for (boolean multiplexing : new boolean[] {true, false}) {
            Path dir = Files.createDirectories(dataDir.resolve("multiplexing-" + multiplexing));
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
                                    + ", pool: {max_connections: 3, multiplexing: " + multiplexing + "}}",
                            "schemas:",
                            "  - {name: " + ProxyCluster.SCHEMA + ", default_hostgroup: 10}",
                            ""))));
        }
    }

    @AfterAll
    static void closeRouters() {
        ROUTERS.values().forEach(Shardgate::close);
        ROUTERS.clear();
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

    @ParameterizedTest(name = "{0} multiplexing={1}")
    @MethodSource("clients")
    void showWarningsReadsTheSessionsOwnPreviousStatement(Driver driver, boolean multiplexing) throws Exception {
        List<String> direct;
        try (Connection a = direct(driver);
                Connection b = direct(driver)) {
            direct = script(a, b);
        }
        Shardgate router = ROUTERS.get(multiplexing);
        List<String> viaRouter;
        try (Connection a = proxied(driver, router);
                Connection b = proxied(driver, router)) {
            viaRouter = script(a, b);
        }
        assertThat(direct)
                .as("the script raises warnings and errors")
                .contains("A SHOW WARNINGS: Warning|1365|Division by 0")
                .anyMatch(line -> line.startsWith("A SHOW ERRORS: Error|1146|"));
        assertThat(viaRouter)
                .as("through Shardgate (%s, multiplexing=%s) vs directly", driver, multiplexing)
                .isEqualTo(direct);
    }

    /**
     * The router's own look at the diagnostics area (after a statement that follows warnings)
     * changes neither what GET DIAGNOSTICS reads as ROW_COUNT ({@code main.get_diagnostics}) nor
     * the row number the next statement's warnings report ({@code main.sp-vars}: {@code at row 0}).
     */
    @ParameterizedTest(name = "{0} multiplexing={1}")
    @MethodSource("clients")
    void statementInformationAndRowNumbersAreTheServersOwn(Driver driver, boolean multiplexing) throws Exception {
        List<String> direct;
        try (Connection a = direct(driver)) {
            direct = statementInformation(a);
        }
        List<String> viaRouter;
        try (Connection a = proxied(driver, ROUTERS.get(multiplexing))) {
            viaRouter = statementInformation(a);
        }
        assertThat(direct)
                .as("the script reads what MariaDB answers")
                .contains("A SELECT @iw_rc, @iw_rc2, @iw_n: 2|2|0", "A SELECT @iw_rc, @iw_n: -1|1")
                .anyMatch(line -> line.startsWith("ERR 1406") && line.endsWith("at row 0"));
        assertThat(viaRouter)
                .as("through Shardgate (%s, multiplexing=%s) vs directly", driver, multiplexing)
                .isEqualTo(direct);
    }

    private static List<String> statementInformation(Connection a) throws SQLException {
        List<String> seen = new ArrayList<>();
        run(a, "DELETE FROM iw_items WHERE id >= 20", seen);
        run(a, "SELECT 1/0", seen); // a warning: the router looks at the area after the next statement
        run(a, "INSERT INTO iw_items VALUES (20, 1), (21, 1)", seen);
        read(a, "GET DIAGNOSTICS @iw_rc = ROW_COUNT", seen);
        read(a, "GET DIAGNOSTICS @iw_rc2 = ROW_COUNT, @iw_n = NUMBER", seen); // GET DIAGNOSTICS keeps it
        read(a, "SELECT @iw_rc, @iw_rc2, @iw_n", seen);

        run(a, "SELECT 1/0", seen);
        run(a, "SELECT 1", seen); // no table, nothing raised: the warning stays
        read(a, "GET DIAGNOSTICS @iw_rc = ROW_COUNT, @iw_n = NUMBER", seen);
        read(a, "SELECT @iw_rc, @iw_n", seen);

        run(a, "DROP PROCEDURE IF EXISTS iw_missing", seen); // a note
        run(a, "CALL iw_echo('abc')", seen); // one row, nothing raised: the note stays
        try (Statement s = a.createStatement()) {
            s.execute("CALL iw_echo('abcdef')");
            seen.add("no error");
        } catch (SQLException e) {
            // (MariaDB Connector/J writes the connection id in: the router's and the server's differ)
            seen.add("ERR " + e.getErrorCode() + " " + e.getMessage().replaceAll("\\(conn=\\d+\\) ", ""));
        }
        return seen;
    }

    @ParameterizedTest(name = "{0} multiplexing={1}")
    @MethodSource("clients")
    void aPooledConnectionCarriesNoWarningsOfTheSessionThatUsedItBefore(Driver driver, boolean multiplexing)
            throws Exception {
        // one backend connection: the second session gets the very connection the first one left
        try (Shardgate router = cluster.oneConnectionRouter(multiplexing)) {
            List<String> viaRouter = new ArrayList<>();
            // the same options for both: connections of one kind (capabilities) serve both
            Map<String, String> multi = new HashMap<>(options());
            multi.put("allowMultiQueries", "true");
            try (Connection c = driver.connect(
                    router.mysqlPort(), ProxyCluster.SCHEMA, ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, multi)) {
                run(c, "SELECT 1/0", viaRouter); // leaves with its warning
            }
            try (Connection d = driver.connect(
                    router.mysqlPort(), ProxyCluster.SCHEMA, ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, multi)) {
                // one command: nothing of the router's can run between the two statements
                viaRouter.addAll(CallTranscript.ofStatement(d, "SELECT 3; SHOW WARNINGS"));
                read(d, "SELECT 2", viaRouter);
                read(d, "SHOW WARNINGS", viaRouter);
            }
            assertThat(router.poolStats().created())
                    .as("the second session got the first one's connection")
                    .isEqualTo(1);
            assertThat(viaRouter)
                    .containsExactly(
                            "columns: 3",
                            "3",
                            "--",
                            "columns: Level Code Message",
                            "--",
                            "A SELECT 2: 2",
                            "A SHOW WARNINGS: (none)");
        }
    }

    @Test
    void losingTheConnectionThatHeldOnlyWarningsKeepsTheSession() throws Exception {
        Shardgate router = ROUTERS.get(true);
        // a raw client: a driver may give up its connection on any 08S01 error, the router must not
        try (RawMySqlClient a = RawMySqlClient.loggedIn(
                        router.mysqlPort(), ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, ProxyCluster.SCHEMA);
                Connection root = Driver.MARIADB.connect(
                        cluster.backend().port(),
                        ProxyCluster.SCHEMA,
                        "root",
                        cluster.backend().rootPassword())) {
            assertThat(rawRow(a, "SELECT 1/0")).isEqualTo("NULL");
            // a statement without tables keeps the warning, so the held connection answers it
            // the backend thread holding the warning (CONNECTION_ID() answers the router session id)
            String backendId = rawRow(a, "SELECT @@pseudo_thread_id");
            try (Statement s = root.createStatement()) {
                s.execute("KILL " + backendId);
            }
            // the router learns of the death before or during the next statement: at most that
            // statement fails (2013); the client session itself goes on
            a.sendCommand(RawMySqlClient.comQuery("SELECT 1"));
            RawMySqlClient.RawPacket first = a.readPacket();
            if (first.isErr()) {
                assertThat(first.err().code()).isEqualTo(2013);
            } else {
                RawResults.readRest(a, first);
            }
            assertThat(rawRow(a, "SELECT 2")).isEqualTo("2");
            // MariaDB would still count the 1/0 warning after statements without tables: it died
            // with the connection, so the router refuses rather than answering 0
            a.sendCommand(RawMySqlClient.comQuery("SHOW COUNT(*) WARNINGS"));
            RawMySqlClient.RawPacket refused = a.readPacket();
            assertThat(refused.isErr()).isTrue();
            assertThat(refused.err().code()).isEqualTo(1235);
            // a statement that uses a table replaces the area: known (empty) again
            assertThat(rawRow(a, "SELECT COUNT(*) FROM iw_items WHERE 1 = 0")).isEqualTo("0");
            assertThat(rawRow(a, "SHOW COUNT(*) WARNINGS")).isEqualTo("0");
        }
    }

    /** The only value of the one-row, one-column text result of {@code sql} through {@code c}. */
    private static String rawRow(RawMySqlClient c, String sql) throws Exception {
        c.sendCommand(RawMySqlClient.comQuery(sql));
        List<String> packets = RawResults.readResponse(c, false);
        assertThat(packets).as("%s", sql).hasSize(5); // column count, definition, EOF, row, EOF
        byte[] row = java.util.HexFormat.of()
                .parseHex(packets.get(3).substring(packets.get(3).indexOf(':') + 1));
        return (row[0] & 0xFF) == 0xFB
                ? "NULL"
                : new String(row, 1, row[0] & 0xFF, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The statements of sessions A and B, interleaved; returns what A observes, line by line. */
    private static List<String> script(Connection a, Connection b) throws SQLException {
        List<String> seen = new ArrayList<>();
        run(a, "SELECT 1/0", seen);
        run(b, "SELECT CAST('b1' AS SIGNED)", seen); // B's warnings land in B's server session
        read(a, "SHOW WARNINGS", seen);
        read(a, "SHOW COUNT(*) WARNINGS", seen);
        read(a, "SELECT @@warning_count", seen);
        read(a, "SHOW WARNINGS", seen); // reading them does not clear them

        run(a, "SELECT 2", seen); // raises none: A's area is empty now
        run(b, "SELECT CAST('b2' AS SIGNED), 1/0", seen);
        read(a, "SHOW WARNINGS", seen);
        read(a, "SELECT @@warning_count", seen);

        run(a, "SELECT * FROM iw_missing", seen);
        run(b, "SELECT CAST('b3' AS SIGNED)", seen);
        read(a, "SHOW ERRORS", seen);
        read(a, "SHOW WARNINGS", seen);
        read(a, "SELECT @@error_count", seen);

        run(a, "SELECT CAST('a1' AS SIGNED), CAST('a2' AS SIGNED), 1/0", seen);
        run(b, "SELECT 1/0", seen);
        read(a, "SHOW WARNINGS LIMIT 1, 1", seen);
        read(a, "SHOW COUNT(*) WARNINGS", seen);

        run(a, "SELECT 1/0", seen);
        run(a, "SELECT COUNT(*) FROM iw_items", seen); // uses a table: the warning is gone
        run(b, "SELECT CAST('b5' AS SIGNED)", seen);
        read(a, "SHOW WARNINGS", seen);
        read(a, "SELECT @@warning_count", seen);

        run(a, "INSERT INTO iw_items VALUES (1, 1) ON DUPLICATE KEY UPDATE v = v", seen);
        run(b, "SELECT CAST('b4' AS SIGNED)", seen);
        read(a, "SHOW WARNINGS", seen);

        // the driver's own way: getWarnings() after B ran in between (both drivers ask lazily)
        try (Statement s = a.createStatement()) {
            s.execute("SELECT CAST('a3' AS SIGNED)");
            run(b, "SELECT 1/0", seen);
            for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
                seen.add("A getWarnings: " + w.getErrorCode() + " " + w.getMessage());
            }
        }

        // sql_select_limit = 0 limits SHOW COUNT(*) WARNINGS too: the router's own check of the area
        // gets no row (the differential tester's seed 7 lost its connection there)
        run(a, "SET SESSION sql_select_limit = 0", seen);
        run(a, "SELECT 1/0", seen);
        run(a, "SELECT COUNT(*) FROM iw_items", seen);
        run(b, "SELECT CAST('b7' AS SIGNED)", seen);
        run(a, "SET SESSION sql_select_limit = DEFAULT", seen);
        read(a, "SHOW WARNINGS", seen);
        read(a, "SELECT @@warning_count", seen);

        // user variables pin the session under multiplexing: last
        run(a, "SELECT CAST('a4' AS SIGNED), 1/0", seen);
        read(a, "GET DIAGNOSTICS @iw_n = NUMBER", seen);
        read(a, "SELECT @iw_n", seen);
        run(a, "SELECT 1/0", seen);
        run(a, "SET @iw_x = 1", seen); // no table, nothing raised: the warning stays
        run(b, "SELECT CAST('b6' AS SIGNED)", seen);
        read(a, "SHOW WARNINGS", seen);
        return seen;
    }

    /** Runs a statement, recording its result or error (what A observes, or that B ran). */
    private static void run(Connection c, String sql, List<String> seen) {
        try (Statement s = c.createStatement()) {
            if (s.execute(sql)) {
                try (ResultSet rs = s.getResultSet()) {
                    while (rs.next()) {
                        // the rows do not matter here, only the diagnostics the statement leaves
                    }
                }
            }
        } catch (SQLException e) {
            seen.add("ERR " + e.getErrorCode() + " " + sql);
        }
    }

    /** Runs a diagnostics statement of session A and records its rows. */
    private static void read(Connection a, String sql, List<String> seen) throws SQLException {
        try (Statement s = a.createStatement()) {
            if (!s.execute(sql)) {
                seen.add("A " + sql + ": ok");
                return;
            }
            try (ResultSet rs = s.getResultSet()) {
                int columns = rs.getMetaData().getColumnCount();
                boolean any = false;
                while (rs.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int i = 1; i <= columns; i++) {
                        row.append(i > 1 ? "|" : "").append(rs.getString(i));
                    }
                    seen.add("A " + sql + ": " + row);
                    any = true;
                }
                if (!any) {
                    seen.add("A " + sql + ": (none)");
                }
            }
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

    private static Connection proxied(Driver driver, Shardgate router) throws SQLException {
        return driver.connect(
                router.mysqlPort(), ProxyCluster.SCHEMA, ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, options());
    }
}
