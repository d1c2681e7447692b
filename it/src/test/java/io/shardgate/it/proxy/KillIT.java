package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.buffer.Unpooled;
import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.it.tools.ExternalTool;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * KILL, SHOW PROCESSLIST and CONNECTION_ID() through the router name router sessions (issue 16
 * item 5, issue 23): two real MariaDB shards, a hash-sharded table, a router with multiplexing
 * and one without, both on one event loop with small pools so sessions share backend
 * connections. KILL QUERY interrupts a session's statement on each shard it runs on and nothing
 * else: a bystander's statement on the same shards still completes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KillIT {
    private static final String SCHEMA = "killdb";
    private static final String BACKEND_USER = "shardgate";
    private static final String BACKEND_PASSWORD = "sg-secret";
    /**
     * Seconds the interrupted statements would run (SLEEP, and the row-lock wait of the UPDATE):
     * longer than the build's 5-minute test timeout, so a statement the router failed to interrupt
     * fails its test rather than ending by itself and letting it pass.
     */
    private static final int LONG_SLEEP = 600;

    /** How long {@link #awaitOnShards} waits for a state: a liveness bound, far beyond what a loaded machine needs. */
    private static final int AWAIT_SECONDS = 120;

    private final List<MariaDbServer> shards = new ArrayList<>();
    private final Map<Boolean, Shardgate> routers = new HashMap<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    /** A row id held by each shard (index 0: hostgroup 10, 1: hostgroup 20). */
    private final long[] idOn = new long[2];
    /** Another row id of each shard, for bystanders. */
    private final long[] otherIdOn = new long[2];

    @BeforeAll
    void start() throws Exception {
        for (int i = 0; i < 2; i++) {
            shards.add(MariaDbServer.builder()
                    .database(SCHEMA)
                    .user(BACKEND_USER, BACKEND_PASSWORD)
                    .innodbBufferPoolSize("32M")
                    .start());
        }
        for (MariaDbServer shard : shards) {
            try (Connection c = Driver.MARIADB.connect(shard.port(), SCHEMA, "root", shard.rootPassword());
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE items (id INT PRIMARY KEY, v INT)");
                // the scatter UPDATE below waits for row locks as long as the SLEEP
                s.execute("SET GLOBAL innodb_lock_wait_timeout = " + LONG_SLEEP);
            }
        }
        for (boolean multiplexing : new boolean[] {true, false}) {
            Path dataDir = Files.createTempDirectory("shardgate-kill-");
            String pool = "pool: {max_connections: 4, multiplexing: " + multiplexing + "}";
            routers.put(
                    multiplexing,
                    Shardgate.start(RouterConfig.parse(String.join(
                            "\n",
                            "server: {port: 0, http_port: 0, io_threads: 1, data_dir: \"" + dataDir + "\"}",
                            "users:",
                            "  - {name: app, password: app-pw}",
                            "  - {name: other, password: other-pw}",
                            "  - {name: ops, password: ops-pw, connection_admin: true}",
                            "hostgroups:",
                            "  - {id: 10, writer: \"" + shards.get(0).address() + "\", user: " + BACKEND_USER
                                    + ", password: " + BACKEND_PASSWORD + ", " + pool + "}",
                            "  - {id: 20, writer: \"" + shards.get(1).address() + "\", user: " + BACKEND_USER
                                    + ", password: " + BACKEND_PASSWORD + ", " + pool + "}",
                            "schemas:",
                            "  - name: " + SCHEMA,
                            "    default_hostgroup: 10",
                            "    tables:",
                            "      - {name: items, strategy: hash, column: id, buckets: 2, hostgroups: {10: \"0\", 20: \"1\"}}",
                            ""))));
        }
        try (Connection c = connect(true, Driver.MARIADB, "app");
                Statement s = c.createStatement()) {
            for (int id = 1; id <= 8; id++) {
                s.execute("INSERT INTO items (id, v) VALUES (" + id + ", " + id + ")");
            }
        }
        // each shard holds rows: the scatter below runs on both
        for (int i = 0; i < 2; i++) {
            try (Connection c = direct(i);
                    Statement s = c.createStatement()) {
                idOn[i] = single(s, "SELECT MIN(id) FROM items");
                otherIdOn[i] = single(s, "SELECT MAX(id) FROM items");
            }
            assertThat(idOn[i]).isPositive().isLessThan(otherIdOn[i]);
        }
    }

    /**
     * The long statements a test interrupts: SLEEP on one shard, and (SLEEP being refused on several
     * shards) an UPDATE on both that waits for row locks {@link #lockRows} holds directly on them.
     */
    private String singleShardSleep() {
        return "SELECT SLEEP(" + LONG_SLEEP + ") FROM items WHERE id = " + idOn[0];
    }

    private String scatterUpdate() {
        return "UPDATE items SET v = v + 1000 WHERE id IN (" + idOn[0] + ", " + idOn[1] + ")";
    }

    /** A read on both shards (merged by the router) that waits for the rows {@link #lockRows} holds. */
    private String scatterLockingRead() {
        return "SELECT v FROM items WHERE id IN (" + idOn[0] + ", " + idOn[1] + ") ORDER BY v FOR UPDATE";
    }

    /** Holds the rows {@link #scatterUpdate} changes locked, in a transaction on each shard. */
    private List<Connection> lockRows() throws SQLException {
        return lockRows(idOn);
    }

    /** Locks row {@code ids[i]} of shard {@code i}, in a transaction on each shard. */
    private List<Connection> lockRows(long[] ids) throws SQLException {
        List<Connection> locks = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Connection c = direct(i);
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SELECT v FROM items WHERE id = " + ids[i] + " FOR UPDATE");
            }
            locks.add(c);
        }
        return locks;
    }

    private static void unlock(List<Connection> locks) throws SQLException {
        for (Connection c : locks) {
            if (!c.isClosed()) {
                c.rollback();
                c.close();
            }
        }
    }

    @AfterAll
    void stop() {
        pool.shutdownNow();
        routers.values().forEach(Shardgate::close);
        shards.forEach(MariaDbServer::close);
    }

    static List<Arguments> driversAndMultiplexing() {
        List<Arguments> out = new ArrayList<>();
        for (Driver driver : Driver.values()) {
            out.add(Arguments.of(driver, true));
            out.add(Arguments.of(driver, false));
        }
        return out;
    }

    @ParameterizedTest(name = "{0}, multiplexing {1}")
    @MethodSource("driversAndMultiplexing")
    void connectionIdIsTheHandshakeIdInEveryPosition(Driver driver, boolean multiplexing) throws Exception {
        try (Connection c = connect(multiplexing, driver, "app");
                Connection prepared = connect(multiplexing, driver, "app", Map.of("useServerPrepStmts", "true"));
                Statement s = c.createStatement()) {
            long id = threadId(c);
            assertThat(single(s, "SELECT CONNECTION_ID()")).isEqualTo(id);
            assertThat(single(s, "select connection_id ( ) + 0")).isEqualTo(id);
            // one shard, and a scatter over both: every row carries the router's id
            assertThat(longs(s, "SELECT CONNECTION_ID() FROM items WHERE id = 3"))
                    .containsExactly(id);
            assertThat(longs(s, "SELECT CONNECTION_ID() FROM items")).hasSize(8).containsOnly(id);
            // not inside a string literal or a comment
            assertThat(text(s, "SELECT 'CONNECTION_ID()' /* CONNECTION_ID() */"))
                    .isEqualTo("CONNECTION_ID()");
            try (var ps = prepared.prepareStatement("SELECT CONNECTION_ID() FROM items WHERE id = ?")) {
                ps.setInt(1, 5);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isEqualTo(threadId(prepared));
                }
            }
        }
    }

    /**
     * Issue 23 ({@code main.func_hybrid_type}): the router's id has the type MariaDB gives
     * CONNECTION_ID(), {@code int(10) unsigned NOT NULL}, in result metadata (text and binary
     * protocol) and in the columns of CREATE TABLE ... AS SELECT, also through IFNULL / CASE.
     */
    @ParameterizedTest(name = "{0}, multiplexing {1}")
    @MethodSource("driversAndMultiplexing")
    void connectionIdHasTheServersType(Driver driver, boolean multiplexing) throws Exception {
        String select = "SELECT CONNECTION_ID() AS c0, IFNULL(CONNECTION_ID(), CONNECTION_ID()) AS c1,"
                + " CASE WHEN 0 THEN CONNECTION_ID() ELSE CONNECTION_ID() END AS c2";
        String table = "cid_" + driver.name().toLowerCase(java.util.Locale.ROOT) + "_" + multiplexing;
        List<String> direct;
        try (Connection c = driver.connect(shards.get(0).port(), SCHEMA, BACKEND_USER, BACKEND_PASSWORD)) {
            direct = typesOf(c, select, table);
        }
        try (Connection c = connect(multiplexing, driver, "app");
                Connection prepared = connect(multiplexing, driver, "app", Map.of("useServerPrepStmts", "true"))) {
            assertThat(direct)
                    .as("directly")
                    .contains("c0 " + java.sql.Types.INTEGER + " 10 unsigned not null")
                    .contains("`c0` int(10) unsigned NOT NULL");
            assertThat(typesOf(c, select, table)).as("through the router").isEqualTo(direct);
            assertThat(typesOf(prepared, select, table + "_p")).as("prepared").isEqualTo(direct);
            assertThat(single(c.createStatement(), "SELECT CONNECTION_ID() - 0"))
                    .isEqualTo(threadId(c));
            // stored as a constant in a view's body, or parsed by the server from a string: refused
            for (String stored : List.of(
                    "CREATE VIEW " + table + "_v AS SELECT CONNECTION_ID() AS id",
                    "PREPARE " + table + "_s FROM 'SELECT CONNECTION_ID()'")) {
                SQLException refused = org.assertj.core.api.Assertions.catchThrowableOfType(
                        SQLException.class, () -> c.createStatement().execute(stored));
                assertThat(refused.getErrorCode()).as(stored).isEqualTo(1235);
                assertThat(refused.getMessage()).contains("CONNECTION_ID()");
            }
            try (var ps = prepared.prepareStatement("CREATE VIEW " + table + "_pv AS SELECT CONNECTION_ID()")) {
                SQLException refused =
                        org.assertj.core.api.Assertions.catchThrowableOfType(SQLException.class, ps::execute);
                assertThat(refused.getErrorCode()).isEqualTo(1235);
            } catch (SQLException refusedAtPrepare) {
                assertThat(refusedAtPrepare.getErrorCode()).isEqualTo(1235);
            }
            assertThat(single(c.createStatement(), "SELECT CONNECTION_ID() - 0"))
                    .as("the session goes on")
                    .isEqualTo(threadId(c));
        }
    }

    /**
     * The result metadata of {@code select} (a prepared statement on a connection that prepares on
     * the server) and the column definitions of a table created from it (then dropped).
     */
    private static List<String> typesOf(Connection c, String select, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (var ps = c.prepareStatement(select);
                ResultSet rs = ps.executeQuery()) {
            var meta = rs.getMetaData();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                out.add(meta.getColumnLabel(i) + " " + meta.getColumnType(i) + " " + meta.getPrecision(i)
                        + (meta.isSigned(i) ? " signed" : " unsigned")
                        + (meta.isNullable(i) == java.sql.ResultSetMetaData.columnNoNulls ? " not null" : " null"));
            }
        }
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " AS " + select);
            try (ResultSet rs = s.executeQuery("SHOW CREATE TABLE " + table)) {
                assertThat(rs.next()).isTrue();
                String ddl = rs.getString(2);
                ddl.lines()
                        .filter(line -> line.trim().startsWith("`"))
                        .map(line -> line.trim().replaceAll(",$", ""))
                        .forEach(out::add);
            } finally {
                s.execute("DROP TABLE " + table);
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{0}, multiplexing {1}")
    @MethodSource("driversAndMultiplexing")
    void killQueryInterruptsASingleShardAndAScatterStatementOnly(Driver driver, boolean multiplexing) throws Exception {
        for (String sql : List.of(singleShardSleep(), scatterUpdate(), scatterLockingRead())) {
            boolean scatter = !sql.startsWith("SELECT SLEEP");
            // the shards' text of the statement: a merged read carries hidden collation-weight columns
            // after its first item ("SELECT v, WEIGHT_STRING(v), ...")
            String prefix = !scatter
                    ? "SELECT SLEEP(" + LONG_SLEEP + ")"
                    : sql.startsWith("UPDATE") ? sql.substring(0, 12) : "SELECT v";
            List<Connection> locks = scatter ? lockRows() : List.of();
            // bystanders wait for these locks on both shards while the KILL lands, then finish
            List<Connection> bystanderLocks = lockRows(otherIdOn);
            try (Connection victim = connect(multiplexing, driver, "app");
                    Connection bystander1 = connect(multiplexing, driver, "app");
                    Connection bystander2 = connect(multiplexing, driver, "other");
                    Connection killer = connect(multiplexing, driver, "app");
                    Statement k = killer.createStatement()) {
                long id = threadId(victim);
                // bystanders run on both shards over the same pools (multiplexed: the same
                // backend connections, one after another) while the KILL lands
                String bystanderPrefix = "SELECT id FROM items WHERE id = ";
                Future<List<Long>> b1 =
                        pool.submit(() -> longs(bystander1, bystanderPrefix + otherIdOn[0] + " LOCK IN SHARE MODE"));
                Future<List<Long>> b2 =
                        pool.submit(() -> longs(bystander2, bystanderPrefix + otherIdOn[1] + " LOCK IN SHARE MODE"));
                awaitOnShards(bystanderPrefix, 2);
                Future<List<Long>> victimRuns =
                        pool.submit(() -> sql.startsWith("UPDATE") ? updated(victim, sql) : longs(victim, sql));
                awaitOnShards(prefix, scatter ? 2 : 1);
                k.execute("KILL QUERY " + id);
                assertInterrupted(victimRuns);
                awaitOnShards(prefix, 0);
                // no bystander's statement was interrupted: each gets its row once its lock is free
                unlock(bystanderLocks);
                assertThat(b1.get()).containsExactly(otherIdOn[0]);
                assertThat(b2.get()).containsExactly(otherIdOn[1]);
                // the victim's session goes on
                try (Statement s = victim.createStatement()) {
                    assertThat(single(s, "SELECT COUNT(*) FROM items")).isEqualTo(8);
                    assertThat(single(s, "SELECT CONNECTION_ID()")).isEqualTo(id);
                    // the interrupted UPDATE changed nothing
                    assertThat(single(s, "SELECT MAX(v) FROM items")).isLessThan(1000);
                }
            } finally {
                unlock(locks);
                unlock(bystanderLocks);
            }
        }
    }

    /**
     * setQueryTimeout. Connector/J: at the timeout it opens a connection and sends KILL QUERY with the
     * handshake's id. MariaDB Connector/J on a MariaDB server: it sends {@code SET STATEMENT
     * max_statement_time=1 FOR <statement>}, which the router plans by the inner statement and sends,
     * prefix and all, to every shard it reaches; the shards end their parts at the timeout (1969).
     */
    @ParameterizedTest(name = "{0}, multiplexing {1}")
    @MethodSource("driversAndMultiplexing")
    void setQueryTimeoutInterruptsTheStatementAndTheSessionWorksAfter(Driver driver, boolean multiplexing)
            throws Exception {
        for (String sql : List.of(singleShardSleep(), scatterUpdate())) {
            boolean scatter = sql.startsWith("UPDATE");
            List<Connection> locks = scatter ? lockRows() : List.of();
            try (Connection c = connect(multiplexing, driver, "app");
                    Statement s = c.createStatement()) {
                s.setQueryTimeout(1);
                Future<?> timing = pool.submit(() -> s.execute(sql));
                ExecutionException e = catchThrowableOfType(ExecutionException.class, timing::get);
                assertThat(e.getCause()).isInstanceOf(SQLTimeoutException.class);
                // interrupted on the shards, not left running until it ends
                awaitOnShards(scatter ? "UPDATE items" : "SELECT SLEEP(" + LONG_SLEEP + ")", 0);
                s.setQueryTimeout(0);
                assertThat(single(s, "SELECT COUNT(*) FROM items")).isEqualTo(8);
                assertThat(single(s, "SELECT MAX(v) FROM items")).isLessThan(1000);
            } finally {
                unlock(locks);
            }
        }
    }

    /**
     * The mariadb CLI's Ctrl-C: on SIGINT during a statement it opens a second connection and sends
     * {@code KILL QUERY <id>} with the id of the router's handshake; the statement ends with 1317 on
     * every shard it ran on, and the CLI reports it. Skipped (and listed) without the mariadb CLI.
     */
    @ParameterizedTest(name = "multiplexing {0}")
    @ValueSource(booleans = {true, false})
    void theCliCtrlCInterruptsTheStatementOnTheShards(boolean multiplexing) throws Exception {
        Path cli = ExternalTool.MARIADB_CLI.require();
        for (String sql : List.of(singleShardSleep(), scatterUpdate())) {
            boolean scatter = sql.startsWith("UPDATE");
            List<Connection> locks = scatter ? lockRows() : List.of();
            Process process = new ProcessBuilder(
                            cli.toString(),
                            "--no-defaults",
                            "--protocol=TCP",
                            "--host=127.0.0.1",
                            "--port=" + routers.get(multiplexing).mysqlPort(),
                            "--user=app",
                            "--password=app-pw",
                            "--database=" + SCHEMA,
                            "--execute=" + sql)
                    .redirectErrorStream(true)
                    .start();
            try {
                awaitOnShards(scatter ? "UPDATE items" : "SELECT SLEEP(" + LONG_SLEEP + ")", scatter ? 2 : 1);
                new ProcessBuilder("kill", "-INT", Long.toString(process.pid()))
                        .start()
                        .waitFor();
                assertThat(process.waitFor(AWAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(output).contains("Query execution was interrupted");
                assertThat(process.exitValue()).isNotZero();
                // interrupted on the shards, not left running until it ends
                awaitOnShards(scatter ? "UPDATE items" : "SELECT SLEEP(" + LONG_SLEEP + ")", 0);
            } finally {
                process.destroyForcibly();
                unlock(locks);
            }
        }
        try (Connection c = connect(multiplexing, Driver.MARIADB, "app");
                Statement s = c.createStatement()) {
            assertThat(single(s, "SELECT MAX(v) FROM items")).isLessThan(1000);
        }
    }

    @ParameterizedTest(name = "{0}, multiplexing {1}")
    @MethodSource("driversAndMultiplexing")
    void cancelFromAnotherThreadInterruptsTheStatement(Driver driver, boolean multiplexing) throws Exception {
        for (String sql : List.of(singleShardSleep(), scatterUpdate())) {
            boolean scatter = sql.startsWith("UPDATE");
            String prefix = scatter ? "UPDATE items" : "SELECT SLEEP(" + LONG_SLEEP + ")";
            List<Connection> locks = scatter ? lockRows() : List.of();
            try (Connection c = connect(multiplexing, driver, "app");
                    Statement s = c.createStatement()) {
                Future<List<Long>> running =
                        pool.submit(() -> scatter ? List.of((long) s.executeUpdate(sql)) : longs(s, sql));
                awaitOnShards(prefix, scatter ? 2 : 1);
                s.cancel(); // both drivers: KILL QUERY <id> on a new connection
                assertInterruptedOrCancelled(running);
                // interrupted on the shards: the statement would run for minutes otherwise
                awaitOnShards(prefix, 0);
                assertThat(single(s, "SELECT COUNT(*) FROM items")).isEqualTo(8);
                assertThat(single(s, "SELECT MAX(v) FROM items")).isLessThan(1000);
            } finally {
                unlock(locks);
            }
        }
    }

    @ParameterizedTest(name = "multiplexing {0}")
    @ValueSource(booleans = {true, false})
    void killConnectionEndsTheSessionAndItsStatement(boolean multiplexing) throws Exception {
        try (Connection victim = connect(multiplexing, Driver.MYSQL, "app");
                Connection killer = connect(multiplexing, Driver.MARIADB, "app");
                Statement k = killer.createStatement()) {
            long id = threadId(victim);
            List<Connection> locks = lockRows();
            try {
                Future<List<Long>> running = pool.submit(() -> updated(victim, scatterUpdate()));
                awaitOnShards("UPDATE items", 2);
                k.execute("KILL CONNECTION " + id);
                assertThat(catchThrowableOfType(ExecutionException.class, running::get)
                                .getCause())
                        .isInstanceOf(SQLException.class);
                assertThat(victim.isValid(5)).isFalse();
                awaitOnShards("UPDATE items", 0);
            } finally {
                unlock(locks);
            }
            assertThat(longs(killer, "SELECT ID FROM information_schema.PROCESSLIST WHERE ID = " + id))
                    .isEmpty();
            // an idle session: KILL closes it too
            try (Connection idle = connect(multiplexing, Driver.MARIADB, "app")) {
                k.execute("KILL " + threadId(idle));
                assertThat(idle.isValid(5)).isFalse();
            }
            assertThat(single(k, "SELECT MAX(v) FROM items")).isLessThan(1000);
        }
    }

    @Test
    void killChecksTheIdAndTheOwner() throws Exception {
        try (Connection app = connect(true, Driver.MYSQL, "app");
                Connection appAgain = connect(true, Driver.MARIADB, "app");
                Connection other = connect(true, Driver.MARIADB, "other");
                Connection ops = connect(true, Driver.MYSQL, "ops");
                Statement s = app.createStatement()) {
            assertThat(errorOf(s, "KILL 999999").getErrorCode()).isEqualTo(1094);
            assertThat(errorOf(s, "KILL QUERY 999999").getMessage()).contains("Unknown thread id: 999999");
            SQLException denied = errorOf(s, "KILL QUERY " + threadId(other));
            assertThat(denied.getErrorCode()).isEqualTo(1095);
            assertThat(denied.getMessage()).contains("You are not owner of thread " + threadId(other));
            assertThat(errorOf(s, "KILL QUERY ID 5").getErrorCode()).isEqualTo(1235);
            assertThat(errorOf(s, "KILL USER other").getErrorCode()).isEqualTo(1235);
            // KILL QUERY of an idle session of one's own is a no-op; so is the owner's KILL QUERY
            s.execute("KILL QUERY " + threadId(appAgain));
            assertThat(appAgain.isValid(5)).isTrue();
            // a session's KILL QUERY of itself interrupts that KILL, as MySQL does
            assertThat(errorOf(s, "KILL QUERY CONNECTION_ID()").getErrorCode()).isEqualTo(1317);
            // connection_admin may end any user's session
            try (Statement o = ops.createStatement()) {
                o.execute("KILL " + threadId(other));
            }
            assertThat(other.isValid(5)).isFalse();
            try (Statement a = appAgain.createStatement()) {
                assertThat(single(a, "SELECT 1")).isEqualTo(1);
            }
        }
    }

    /** The old protocol commands: COM_PROCESS_INFO lists router sessions, COM_PROCESS_KILL is KILL CONNECTION. */
    @Test
    void comProcessInfoAndComProcessKillNameRouterSessions() throws Exception {
        try (RawMySqlClient raw = RawMySqlClient.loggedIn(routers.get(true).mysqlPort(), "app", "app-pw", SCHEMA);
                Connection idle = connect(true, Driver.MARIADB, "app")) {
            long idleId = threadId(idle);
            raw.sendCommand(new byte[] {(byte) Command.COM_PROCESS_INFO.code()});
            RawMySqlClient.RawPacket columns = raw.readPacket();
            assertThat(columns.isErr()).as(RawMySqlClient.describe(columns)).isFalse();
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                raw.readPacket(); // column definitions
            }
            assertThat(raw.readPacket().isEof()).isTrue();
            for (RawMySqlClient.RawPacket row = raw.readPacket(); !row.isEof(); row = raw.readPacket()) {
                var values = Unpooled.wrappedBuffer(row.payload());
                ids.add(LengthEncoded.readString(values, StandardCharsets.UTF_8));
            }
            assertThat(ids).contains(Long.toString(idleId));
            byte[] kill = new byte[5];
            kill[0] = (byte) Command.COM_PROCESS_KILL.code();
            for (int i = 0; i < 4; i++) {
                kill[1 + i] = (byte) (idleId >>> (8 * i));
            }
            raw.sendCommand(kill);
            RawMySqlClient.RawPacket answer = raw.readPacket();
            assertThat(answer.isOk()).as(RawMySqlClient.describe(answer)).isTrue();
            assertThat(idle.isValid(5)).isFalse();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Driver.class)
    void processlistListsTheRouterSessions(Driver driver) throws Exception {
        try (Connection app = connect(true, driver, "app");
                Connection app2 = connect(true, driver, "app");
                Connection other = connect(true, driver, "other");
                Connection ops = connect(true, driver, "ops");
                Statement s = app.createStatement();
                Statement o = ops.createStatement()) {
            long self = threadId(app);
            List<Long> seen = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SHOW PROCESSLIST")) {
                assertThat(rs.getMetaData().getColumnLabel(1)).isEqualTo("Id");
                assertThat(rs.getMetaData().getColumnLabel(4)).isEqualTo("db");
                while (rs.next()) {
                    seen.add(rs.getLong("Id"));
                    assertThat(rs.getString("User")).isEqualTo("app");
                    if (rs.getLong("Id") == self) {
                        assertThat(rs.getString("Command")).isEqualTo("Query");
                        assertThat(rs.getString("Info")).isEqualTo("SHOW PROCESSLIST");
                        assertThat(rs.getString("db")).isEqualTo(SCHEMA);
                    } else {
                        assertThat(rs.getString("Command")).isEqualTo("Sleep");
                    }
                }
            }
            // the user's own sessions only, without connection_admin
            assertThat(seen).contains(self, threadId(app2)).doesNotContain(threadId(other), threadId(ops));
            // connection_admin sees everyone
            assertThat(longs(ops, "SELECT ID FROM information_schema.PROCESSLIST ORDER BY ID"))
                    .contains(self, threadId(app2), threadId(other), threadId(ops))
                    .isSorted();
            assertThat(text(o, "SELECT USER FROM information_schema.PROCESSLIST WHERE ID = " + threadId(other)))
                    .isEqualTo("other");
            assertThat(text(s, "SELECT INFO FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()"))
                    .isEqualTo("SELECT INFO FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()");
            assertThat(single(s, "SELECT COUNT(*) FROM information_schema.PROCESSLIST"))
                    .as("app's own sessions")
                    .isEqualTo(longs(s, "SELECT ID FROM information_schema.PROCESSLIST")
                            .size())
                    .isGreaterThanOrEqualTo(2);
            assertThat(errorOf(s, "SELECT COUNT(ID) FROM information_schema.PROCESSLIST")
                            .getErrorCode())
                    .isEqualTo(1235);
        }
    }

    /**
     * Issue 23 ({@code main.flush}): a session whose statement waits on a backend shows that server
     * thread's STATE in the router's process list, as MariaDB shows it for its own threads; mtr's
     * {@code wait_condition.inc} form ({@code SELECT count(*) = 1 ... WHERE state = ... AND info =
     * ...}) sees it. A scatter waiting on one shard shows the waiting shard's state. Once the
     * statement ends, the session's row is the router's again (Sleep, empty state).
     */
    @ParameterizedTest(name = "{0}, multiplexing {1}")
    @MethodSource("driversAndMultiplexing")
    void aStatementWaitingOnABackendShowsTheServerThreadsState(Driver driver, boolean multiplexing) throws Exception {
        String waiting = "Waiting for table metadata lock";
        for (String sql : List.of("SELECT v FROM items WHERE id = " + idOn[0], "SELECT COUNT(*) FROM items")) {
            try (Connection lock = direct(0);
                    Connection victim = connect(multiplexing, driver, "app");
                    Connection viewer = connect(multiplexing, driver, "app");
                    Connection stranger = connect(multiplexing, driver, "other");
                    Statement l = lock.createStatement();
                    Statement v = viewer.createStatement()) {
                long id = threadId(victim);
                l.execute("LOCK TABLES items WRITE"); // on shard 0 only: the victim waits there for the table
                Future<List<Long>> victimRuns = pool.submit(() -> longs(victim, sql));
                String condition = "select count(*) = 1 from information_schema.processlist where state = \"" + waiting
                        + "\" and info = \"" + sql + "\"";
                // a liveness bound, not a speed check
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AWAIT_SECONDS);
                while (single(v, condition) != 1) {
                    assertThat(System.nanoTime()).as(shardProcesslists()).isLessThan(deadline);
                    Thread.sleep(50);
                }
                assertThat(text(v, "SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = " + id))
                        .isEqualTo(waiting);
                try (ResultSet rs = v.executeQuery("SHOW PROCESSLIST")) {
                    boolean seen = false;
                    while (rs.next()) {
                        if (rs.getLong("Id") == id) {
                            assertThat(rs.getString("State")).isEqualTo(waiting);
                            seen = true;
                        }
                    }
                    assertThat(seen).isTrue();
                }
                try (Statement s = stranger.createStatement()) {
                    assertThat(single(s, condition))
                            .as("another user's session is not listed")
                            .isZero();
                }
                l.execute("UNLOCK TABLES");
                assertThat(victimRuns.get()).isNotEmpty();
                assertThat(single(v, condition)).isZero();
                assertThat(text(v, "SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = " + id))
                        .isEmpty();
            }
        }
    }

    /**
     * Issue 23 ({@code main.user_var}): a server thread's columns (MEMORY_USED...) of the session's
     * own row are read on the backend connection the session holds, where the server answers for
     * the thread serving this session alone; refused (1235) while the session holds none, and for
     * any other form.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Driver.class)
    void aServerThreadsColumnsOfTheSessionsOwnRow(Driver driver) throws Exception {
        String own = "SELECT MEMORY_USED, COMMAND, INFO FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()";
        try (Connection pooled = connect(true, driver, "app");
                Connection dedicated = connect(false, driver, "app");
                Statement p = pooled.createStatement();
                Statement d = dedicated.createStatement()) {
            assertThat(errorOf(p, own).getErrorCode())
                    .as("multiplexed, holding no connection")
                    .isEqualTo(1235);
            p.execute("SET @pin = 1"); // a user variable: the session keeps its connection now
            for (Statement s : List.of(p, d)) {
                long before;
                try (ResultSet rs = s.executeQuery(own)) {
                    assertThat(rs.next()).isTrue();
                    before = rs.getLong(1);
                    assertThat(before).isPositive();
                    assertThat(rs.getString(2)).isEqualTo("Query");
                    assertThat(rs.getString(3)).isEqualTo(own);
                    assertThat(rs.next()).isFalse();
                }
                // main.user_var's own check: a large user variable grows the thread's memory
                s.execute("SET @big = REPEAT('a', 30000)");
                assertThat(single(
                                s, "SELECT MEMORY_USED FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()"))
                        .isGreaterThan(before);
                for (String other : List.of(
                        "SELECT ID, MEMORY_USED FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()",
                        "SELECT MEMORY_USED FROM information_schema.PROCESSLIST",
                        "SELECT MEMORY_USED FROM information_schema.PROCESSLIST WHERE ID = " + threadId(pooled))) {
                    assertThat(errorOf(s, other).getErrorCode()).as(other).isEqualTo(1235);
                }
            }
        }
    }

    /** As {@link #assertInterrupted}; a driver may also report its own cancel() as an exception of its own. */
    private void assertInterruptedOrCancelled(Future<List<Long>> running) throws InterruptedException {
        try {
            assertThat(running.get()).containsOnly(1L);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(SQLException.class);
        }
    }

    private void assertInterrupted(Future<List<Long>> running) throws InterruptedException {
        try {
            // MariaDB answers a killed SLEEP either with 1317 or with SLEEP's 1 (interrupted)
            assertThat(running.get()).containsOnly(1L);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(SQLException.class);
            assertThat(((SQLException) e.getCause()).getErrorCode()).isEqualTo(1317);
        }
    }

    /** Waits until the shards run {@code count} statements starting with {@code prefix} between them. */
    private void awaitOnShards(String prefix, int count) throws Exception {
        // a liveness bound, not a speed check: far beyond what a loaded machine needs
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AWAIT_SECONDS);
        int running;
        while ((running = runningOnShards(prefix)) != count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the shards run " + running + " statements starting with " + prefix
                        + ", expected " + count + ":\n" + shardProcesslists());
            }
            Thread.sleep(50);
        }
    }

    private String shardProcesslists() throws SQLException {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < shards.size(); i++) {
            try (Connection c = direct(i);
                    Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery("SELECT ID, COMMAND, TIME, INFO FROM information_schema.PROCESSLIST")) {
                while (rs.next()) {
                    out.append("shard ")
                            .append(i)
                            .append(": ")
                            .append(rs.getLong(1))
                            .append(' ')
                            .append(rs.getString(2))
                            .append(' ')
                            .append(rs.getLong(3))
                            .append(' ')
                            .append(rs.getString(4))
                            .append('\n');
                }
            }
        }
        return out.toString();
    }

    private int runningOnShards(String prefix) throws SQLException {
        int n = 0;
        for (int i = 0; i < shards.size(); i++) {
            try (Connection c = direct(i);
                    var ps = c.prepareStatement("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                            + " WHERE COMMAND = 'Query' AND (INFO LIKE CONCAT(?, '%')"
                            // MariaDB Connector/J's query timeout: SET STATEMENT max_statement_time=N FOR ...
                            + " OR INFO LIKE CONCAT('SET STATEMENT %FOR ', ?, '%'))")) {
                ps.setString(1, prefix);
                ps.setString(2, prefix);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    n += rs.getInt(1);
                }
            }
        }
        return n;
    }

    /** Runs an UPDATE: its affected-row count as a one-element list (the shape {@link #longs} returns). */
    private static List<Long> updated(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            return List.of((long) s.executeUpdate(sql));
        }
    }

    private Connection direct(int shard) throws SQLException {
        return Driver.MARIADB.connect(shards.get(shard).port(), SCHEMA, BACKEND_USER, BACKEND_PASSWORD);
    }

    private Connection connect(boolean multiplexing, Driver driver, String user) throws SQLException {
        return connect(multiplexing, driver, user, Map.of());
    }

    private Connection connect(boolean multiplexing, Driver driver, String user, Map<String, String> properties)
            throws SQLException {
        Map<String, String> p = new HashMap<>(properties);
        p.put("socketTimeout", "300000");
        return driver.connect(routers.get(multiplexing).mysqlPort(), SCHEMA, user, user + "-pw", p);
    }

    /** The connection id the client got in the handshake, as each driver exposes it. */
    private static long threadId(Connection c) throws SQLException {
        if (c.isWrapperFor(com.mysql.cj.jdbc.JdbcConnection.class)) {
            return c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class).getSession().getThreadId();
        }
        return c.unwrap(org.mariadb.jdbc.Connection.class).getThreadId();
    }

    private static SQLException errorOf(Statement s, String sql) {
        return catchThrowableOfType(SQLException.class, () -> s.execute(sql));
    }

    private static long single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }

    private static String text(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }

    private static List<Long> longs(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            return longs(s, sql);
        }
    }

    private static List<Long> longs(Statement s, String sql) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }
}
