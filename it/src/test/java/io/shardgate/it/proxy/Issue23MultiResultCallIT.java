package io.shardgate.it.proxy;

import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_MULTI_RESULTS;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_MULTI_STATEMENTS;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_PS_MULTI_RESULTS;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufUtil;
import io.shardgate.it.Driver;
import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.pool.PoolStats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 23: a CALL (or a multi-statement) returning several results of any shape — a cursor loop
 * SELECTing per FETCH, handlers, zero-row result sets, OUT/INOUT parameters, an error after some
 * result sets, a write ending in an OK — is relayed exactly as MariaDB sends it, in the text and
 * the binary protocol, with both JDBC drivers, the mariadb CLI and a raw COM_STMT_EXECUTE with a
 * cursor flag, multiplexing on and off. Each transcript through the router equals the one taken
 * directly on MariaDB; after each statement the session answers a follow-up query and the pool
 * has opened no connection (a backend connection the relay dropped would be replaced).
 */
@ExtendWith(ProxyClusterExtension.class)
class Issue23MultiResultCallIT {
    private static ProxyCluster cluster;
    private static Path dataDir;
    /** One router per multiplexing setting, keyed by it. */
    private static final Map<Boolean, Shardgate> ROUTERS = new HashMap<>();

    @BeforeAll
    static void createProceduresAndRouters(ProxyCluster shared) throws Exception {
        cluster = shared;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS ic_items");
            s.execute("CREATE TABLE ic_items (id INT PRIMARY KEY, name VARCHAR(20))");
            s.execute("INSERT INTO ic_items VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four'), (5, 'five')");
            s.execute("DROP PROCEDURE IF EXISTS ic_cursor_loop");
            s.execute("CREATE PROCEDURE ic_cursor_loop(IN lim INT) BEGIN"
                    + " DECLARE done INT DEFAULT 0; DECLARE v INT; DECLARE n VARCHAR(20);"
                    + " DECLARE cur CURSOR FOR SELECT id, name FROM ic_items WHERE id <= lim ORDER BY id;"
                    + " DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;"
                    + " OPEN cur;"
                    + " l: LOOP FETCH cur INTO v, n; IF done THEN LEAVE l; END IF;"
                    + " SELECT v AS id, n AS name, v * 2 AS doubled; END LOOP;"
                    + " CLOSE cur; END");
            s.execute("DROP PROCEDURE IF EXISTS ic_out");
            s.execute("CREATE PROCEDURE ic_out(IN a INT, INOUT b INT, OUT c INT) BEGIN"
                    + " SELECT a AS a_in, b AS b_in;"
                    + " SELECT id FROM ic_items WHERE id < 0;"
                    + " SET b = b + a; SET c = a * 10; END");
            s.execute("DROP PROCEDURE IF EXISTS ic_error_after");
            s.execute("CREATE PROCEDURE ic_error_after() BEGIN"
                    + " SELECT 1 AS first; SELECT name FROM ic_items WHERE id = 2;"
                    + " SELECT * FROM ic_no_such_table; END");
            s.execute("DROP PROCEDURE IF EXISTS ic_handler");
            s.execute("CREATE PROCEDURE ic_handler() BEGIN"
                    + " DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SELECT 'handled' AS h;"
                    + " SELECT 1 AS a; INSERT INTO ic_items VALUES (1, 'duplicate'); SELECT 2 AS b; END");
            s.execute("DROP PROCEDURE IF EXISTS ic_write");
            s.execute("CREATE PROCEDURE ic_write() BEGIN UPDATE ic_items SET name = name WHERE id <= 3; END");
            s.execute("DROP PROCEDURE IF EXISTS ic_select_then_write");
            s.execute("CREATE PROCEDURE ic_select_then_write() BEGIN"
                    + " SELECT COUNT(*) AS n FROM ic_items; UPDATE ic_items SET name = CONCAT(name, '') WHERE id <= 2;"
                    + " END");
        }
        dataDir = Files.createTempDirectory("shardgate-issue23-");
        for (boolean multiplexing : new boolean[] {true, false}) {
            Path dir = Files.createDirectories(dataDir.resolve("multiplexing-" + multiplexing));
            ROUTERS.put(multiplexing, Shardgate.start(RouterConfig.parse(routerYaml(multiplexing, dir))));
        }
    }

    @AfterAll
    static void closeRouters() {
        ROUTERS.values().forEach(Shardgate::close);
        ROUTERS.clear();
    }

    private static String routerYaml(boolean multiplexing, Path dir) {
        return String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, admin_port: 0, http_port: 0, io_threads: 1, data_dir: \"" + dir
                        + "\"}",
                "users:",
                "  - {name: " + ProxyCluster.APP_USER + ", password: " + ProxyCluster.APP_PASSWORD + "}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + cluster.backend().address() + "\", user: " + ProxyCluster.BACKEND_USER
                        + ", password: " + ProxyCluster.BACKEND_PASSWORD + ", pool: {max_connections: 4,"
                        + " multiplexing: " + multiplexing + "}}",
                "schemas:",
                "  - {name: " + ProxyCluster.SCHEMA + ", default_hostgroup: 10}",
                "");
    }

    static Stream<Arguments> clients() {
        List<Arguments> all = new ArrayList<>();
        for (boolean multiplexing : new boolean[] {true, false}) {
            for (Driver driver : Driver.values()) {
                for (Mode mode : Mode.values()) {
                    all.add(Arguments.of(driver, mode, multiplexing));
                }
            }
        }
        return all.stream();
    }

    /** Statements sent as COM_QUERY (several results each), with the text protocol's results. */
    private static final List<String> STATEMENTS = List.of(
            "CALL ic_cursor_loop(3)",
            "CALL ic_cursor_loop(0)",
            "CALL ic_handler()",
            "CALL ic_error_after()",
            "CALL ic_write()",
            "CALL ic_select_then_write()",
            "SELECT 1; SELECT 2",
            "SELECT id FROM ic_items WHERE id < 3 ORDER BY id; UPDATE ic_items SET name = name WHERE id = 1;"
                    + " SELECT id FROM ic_items WHERE id < 0",
            "CALL ic_cursor_loop(2); SELECT 'after' AS a",
            "SELECT 1 AS a; SELECT * FROM ic_no_such_table; SELECT 3");

    @ParameterizedTest(name = "{0} {1} multiplexing={2}")
    @MethodSource("clients")
    void statementsReturnEveryResultLikeMariaDb(Driver driver, Mode mode, boolean multiplexing) throws Exception {
        for (String sql : STATEMENTS) {
            compare(driver, mode, multiplexing, sql, c -> CallTranscript.ofStatement(c, sql));
        }
    }

    @ParameterizedTest(name = "{0} {1} multiplexing={2}")
    @MethodSource("clients")
    void callableStatementsReturnResultsAndOutParametersLikeMariaDb(Driver driver, Mode mode, boolean multiplexing)
            throws Exception {
        compare(
                driver,
                mode,
                multiplexing,
                "cursor loop",
                c -> CallTranscript.ofCall(c, "{CALL ic_cursor_loop(?)}", "in:4"));
        compare(
                driver,
                mode,
                multiplexing,
                "OUT and INOUT",
                c -> CallTranscript.ofCall(c, "{CALL ic_out(?, ?, ?)}", "in:4", "inout:5", "out"));
        compare(driver, mode, multiplexing, "handler", c -> CallTranscript.ofCall(c, "{CALL ic_handler()}"));
        compare(
                driver,
                mode,
                multiplexing,
                "error after results",
                c -> CallTranscript.ofCall(c, "{CALL ic_error_after()}"));
        compare(
                driver,
                mode,
                multiplexing,
                "prepared CALL",
                c -> CallTranscript.ofPrepared(c, "CALL ic_cursor_loop(?)", 5));
        compare(
                driver,
                mode,
                multiplexing,
                "prepared write CALL",
                c -> CallTranscript.ofPrepared(c, "CALL ic_write()"));
    }

    /**
     * Runs {@code run} through the router and directly; asserts equal transcripts, a working
     * session afterwards and no backend connection opened in the meantime (none was dropped).
     */
    private static void compare(
            Driver driver, Mode mode, boolean multiplexing, String what, Function<Connection, List<String>> run)
            throws SQLException {
        Shardgate router = ROUTERS.get(multiplexing);
        List<String> direct;
        try (Connection c = driver.connect(
                cluster.backend().port(),
                ProxyCluster.SCHEMA,
                ProxyCluster.BACKEND_USER,
                ProxyCluster.BACKEND_PASSWORD,
                options(mode))) {
            direct = run.apply(c);
        }
        try (Connection c = driver.connect(
                router.mysqlPort(),
                ProxyCluster.SCHEMA,
                ProxyCluster.APP_USER,
                ProxyCluster.APP_PASSWORD,
                options(mode))) {
            assertThat(scalar(c, "SELECT 'ready'")).isEqualTo("ready");
            PoolStats before = router.poolStats();
            List<String> viaRouter = run.apply(c);
            assertThat(viaRouter)
                    .as("%s through Shardgate vs direct (%s, %s, multiplexing=%s)", what, driver, mode, multiplexing)
                    .isEqualTo(direct);
            assertThat(scalar(c, "SELECT CONCAT('still', ' alive')")).isEqualTo("still alive");
            PoolStats after = router.poolStats();
            assertThat(after.created())
                    .as("backend connections opened during %s (one was dropped): %s -> %s", what, before, after)
                    .isEqualTo(before.created());
        }
    }

    private static Map<String, String> options(Mode mode) {
        Map<String, String> options = new HashMap<>(mode.properties());
        options.put("allowMultiQueries", "true");
        options.put("connectTimeout", "30000");
        options.put("socketTimeout", "60000");
        return options;
    }

    private static String scalar(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }

    @ParameterizedTest(name = "multiplexing={0}")
    @ValueSource(booleans = {true, false})
    void mariadbCliPrintsWhatItPrintsOnMariaDb(boolean multiplexing) throws Exception {
        Path cli = ExternalTool.MARIADB_CLI.require();
        Shardgate router = ROUTERS.get(multiplexing);
        String sql = "CALL ic_cursor_loop(3); CALL ic_out(2, @b, @c); CALL ic_handler(); CALL ic_write();"
                + " SELECT 1; SELECT 2; CALL ic_error_after(); SELECT 'not reached'";
        ToolRun viaRouter = mariadb(cli, router.mysqlPort(), ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, sql);
        ToolRun direct =
                mariadb(cli, cluster.backend().port(), ProxyCluster.BACKEND_USER, ProxyCluster.BACKEND_PASSWORD, sql);
        assertThat(direct.stdout()).contains("doubled").contains("handled");
        assertThat(viaRouter.stdout()).as("%s", viaRouter).isEqualTo(direct.stdout());
        assertThat(viaRouter.stderr()).isEqualTo(direct.stderr()).contains("ERROR 1146");
        assertThat(viaRouter.exitCode()).isEqualTo(direct.exitCode());
    }

    private static ToolRun mariadb(Path cli, int port, String user, String password, String sql) throws Exception {
        return ToolRun.run(
                Duration.ofMinutes(2),
                List.of(
                        cli.toString(),
                        "--no-defaults",
                        "--protocol=TCP",
                        "--host=127.0.0.1",
                        "--port=" + port,
                        "--user=" + user,
                        "--password=" + password,
                        "--database=" + ProxyCluster.SCHEMA,
                        "--batch",
                        "--execute=" + sql));
    }

    /**
     * COM_STMT_EXECUTE of a prepared CALL with CURSOR_TYPE_READ_ONLY: MariaDB opens no cursor for a
     * CALL and sends its results inline; the router must relay the same packets, byte for byte.
     */
    @ParameterizedTest(name = "multiplexing={0}")
    @ValueSource(booleans = {true, false})
    void preparedCallWithCursorFlagRelaysTheSamePackets(boolean multiplexing) throws Exception {
        Shardgate router = ROUTERS.get(multiplexing);
        int capabilities = CLIENT_MULTI_RESULTS | CLIENT_PS_MULTI_RESULTS | CLIENT_MULTI_STATEMENTS;
        List<String> direct;
        try (RawMySqlClient c = RawMySqlClient.loggedIn(
                cluster.backend().port(),
                ProxyCluster.BACKEND_USER,
                ProxyCluster.BACKEND_PASSWORD,
                ProxyCluster.SCHEMA,
                capabilities)) {
            direct = executeWithCursorFlag(c, "CALL ic_cursor_loop(3)");
        }
        try (RawMySqlClient c = RawMySqlClient.loggedIn(
                router.mysqlPort(),
                ProxyCluster.APP_USER,
                ProxyCluster.APP_PASSWORD,
                ProxyCluster.SCHEMA,
                capabilities)) {
            PoolStats before = router.poolStats();
            List<String> viaRouter = executeWithCursorFlag(c, "CALL ic_cursor_loop(3)");
            assertThat(viaRouter).isEqualTo(direct);
            c.sendCommand(RawMySqlClient.comQuery("SELECT 'alive'"));
            List<String> alive = RawResults.readResponse(c, false);
            assertThat(alive).anyMatch(p -> p.contains(ByteBufUtil.hexDump("alive".getBytes(UTF_8))));
            assertThat(router.poolStats().created()).isEqualTo(before.created());
        }
        assertThat(direct).hasSizeGreaterThan(10);
    }

    /** Prepares {@code sql}, executes it with a read-only cursor flag and returns the execute's packets in hex. */
    private static List<String> executeWithCursorFlag(RawMySqlClient c, String sql) throws IOException {
        byte[] text = sql.getBytes(UTF_8);
        byte[] prepare = new byte[1 + text.length];
        prepare[0] = (byte) Command.COM_STMT_PREPARE.code();
        System.arraycopy(text, 0, prepare, 1, text.length);
        c.sendCommand(prepare);
        RawMySqlClient.RawPacket ok = c.readPacket();
        assertThat(ok.isOk()).as("%s", ok).isTrue();
        ByteBuffer prepareOk = ByteBuffer.wrap(ok.payload()).order(ByteOrder.LITTLE_ENDIAN);
        int statementId = prepareOk.getInt(1);
        int columns = prepareOk.getShort(5) & 0xFFFF;
        int params = prepareOk.getShort(7) & 0xFFFF;
        assertThat(columns + params)
                .as("a parameterless CALL announces no definitions")
                .isZero();
        ByteBuffer execute = ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN);
        execute.put((byte) Command.COM_STMT_EXECUTE.code());
        execute.putInt(statementId);
        execute.put((byte) 1); // CURSOR_TYPE_READ_ONLY
        execute.putInt(1); // iteration count
        c.sendCommand(execute.array());
        return RawResults.readResponse(c, true);
    }
}
