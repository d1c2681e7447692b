package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backend connection lost while the router runs its own setup command before a client's
 * statement — the replay of the session's SET assignments on a borrowed connection, or a lazy
 * COM_STMT_PREPARE — is cut at exactly that command by a {@link QueryTrapProxy} between the router
 * and MariaDB. The client's statement is answered (a read runs again on a fresh connection, a
 * write gets 2013 and does not run), and the client's command packet, which those setup steps'
 * callbacks would have sent or released, is released: with PARANOID leak detection the test
 * collects garbage and fails on any {@code LEAK:} line.
 *
 * <p>The same holds when the client leaves while the replay waits for the server.
 *
 * <p>One pooled connection and two client sessions: session A's {@code sql_mode} lives on the
 * connection until session B borrows it (a reset), so A's next statement needs a replay there.
 */
@ExtendWith(ProxyClusterExtension.class)
class SetupStepBackendLossIT {
    /** In A's sql_mode only, so the trap springs on A's replay and on nothing else. */
    private static final String A_MODE = "ANSI_QUOTES";

    private static ProxyCluster cluster;

    @TempDir
    Path dataDir;

    private QueryTrapProxy trap;
    private Shardgate router;
    private CapturedLog log;

    @BeforeAll
    static void createTable(ProxyCluster shared) throws SQLException {
        cluster = shared;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS setup_loss");
            s.execute("CREATE TABLE setup_loss (id INT PRIMARY KEY, v INT NOT NULL)");
            s.execute("INSERT INTO setup_loss VALUES (1, 10), (2, 20)");
        }
    }

    @BeforeEach
    void start() throws Exception {
        log = CapturedLog.start(Level.INFO);
        trap = new QueryTrapProxy("127.0.0.1", cluster.backend().port());
        router = Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, http_port: 0, data_dir: \"" + dataDir + "\"}",
                "users:",
                "  - {name: app, password: app-pw}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + trap.address() + "\", user: " + ProxyCluster.BACKEND_USER
                        + ", password: " + ProxyCluster.BACKEND_PASSWORD
                        + ", pool: {max_connections: 1, acquire_timeout_millis: 30000}, monitor: {enabled: false}}",
                "schemas:",
                "  - {name: " + ProxyCluster.SCHEMA + ", default_hostgroup: 10}",
                "")));
    }

    @AfterEach
    void stop() throws Exception {
        try {
            router.close();
            trap.close();
            assertNoLeaks();
        } finally {
            log.close();
        }
    }

    private Connection client(boolean serverPrepared) throws SQLException {
        return Driver.MYSQL.connect(
                router.mysqlPort(),
                ProxyCluster.SCHEMA,
                "app",
                "app-pw",
                Map.of(
                        "socketTimeout",
                        "60000",
                        "useServerPrepStmts",
                        String.valueOf(serverPrepared),
                        "cachePrepStmts",
                        "false"));
    }

    /** A sets its sql_mode; B then borrows the one pooled connection, which resets it to B's state. */
    private static void divergeSessions(Connection a, Connection b) throws SQLException {
        try (Statement s = a.createStatement()) {
            s.execute("SET sql_mode = '" + A_MODE + "'");
        }
        try (Statement s = b.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@sql_mode")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).doesNotContain(A_MODE);
        }
    }

    @Test
    void readWhoseSessionReplayIsCutRunsAgainOnAFreshConnection() throws Exception {
        try (Connection a = client(false);
                Connection b = client(false)) {
            divergeSessions(a, b);
            long retriedBefore = router.metrics().statementsRetried();
            trap.arm(QueryTrapProxy.COM_QUERY, A_MODE);
            try (Statement s = a.createStatement();
                    ResultSet rs = s.executeQuery("SELECT v, @@sql_mode FROM setup_loss WHERE id = 1")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(10);
                assertThat(rs.getString(2))
                        .as("replayed on the fresh connection")
                        .contains(A_MODE);
            }
            assertThat(trap.sprung()).as("replays cut").isEqualTo(1);
            assertThat(router.metrics().statementsRetried()).isEqualTo(retriedBefore + 1);
            // both sessions go on
            try (Statement s = b.createStatement();
                    ResultSet rs = s.executeQuery("SELECT v FROM setup_loss WHERE id = 2")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(20);
            }
        }
    }

    @Test
    void writeWhoseSessionReplayIsCutIsAnswered2013AndDoesNotRun() throws Exception {
        try (Connection a = client(false);
                Connection b = client(false)) {
            divergeSessions(a, b);
            trap.arm(QueryTrapProxy.COM_QUERY, A_MODE);
            try (Statement s = a.createStatement()) {
                assertThatThrownBy(() -> s.executeUpdate("UPDATE setup_loss SET v = v + 1 WHERE id = 2"))
                        .isInstanceOfSatisfying(
                                SQLException.class,
                                e -> assertThat(e.getErrorCode()).isEqualTo(2013));
            }
            assertThat(trap.sprung()).isEqualTo(1);
            try (Statement s = b.createStatement();
                    ResultSet rs = s.executeQuery("SELECT v FROM setup_loss WHERE id = 2")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1))
                        .as("the write never reached the server")
                        .isEqualTo(20);
            }
        }
    }

    @Test
    void executionWhoseLazyPrepareIsCutRunsAgainOnAFreshConnection() throws Exception {
        try (Connection a = client(true);
                Connection b = client(false);
                PreparedStatement ps = a.prepareStatement("SELECT v FROM setup_loss WHERE id = ? /* lazy */")) {
            // B's borrow resets the connection, which drops the statement A prepared there
            divergeSessions(a, b);
            long retriedBefore = router.metrics().statementsRetried();
            trap.arm(QueryTrapProxy.COM_STMT_PREPARE, "/* lazy */");
            ps.setInt(1, 1);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(10);
            }
            assertThat(trap.sprung()).as("lazy prepares cut").isEqualTo(1);
            assertThat(router.metrics().statementsRetried()).isEqualTo(retriedBefore + 1);
        }
    }

    @Test
    void clientThatLeavesDuringItsSessionReplayLeavesNothingBehind() throws Exception {
        try (Connection b = client(false)) {
            try (RawMySqlClient a = RawMySqlClient.loggedIn(router.mysqlPort(), "app", "app-pw", ProxyCluster.SCHEMA)) {
                a.sendCommand(RawMySqlClient.comQuery("SET sql_mode = '" + A_MODE + "'"));
                assertThat(a.readAnswer().isOk()).isTrue();
                try (Statement s = b.createStatement();
                        ResultSet rs = s.executeQuery("SELECT @@sql_mode")) {
                    assertThat(rs.next()).isTrue();
                }
                // the replay for A's next statement never gets an answer, and A leaves meanwhile
                trap.arm(QueryTrapProxy.COM_QUERY, A_MODE, true);
                a.sendCommand(RawMySqlClient.comQuery("SELECT v FROM setup_loss WHERE id = 1"));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (trap.sprung() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(trap.sprung()).as("replays held").isEqualTo(1);
            }
            // the held connection is closed with A's session: B gets the one pooled slot again
            try (Statement s = b.createStatement();
                    ResultSet rs = s.executeQuery("SELECT v FROM setup_loss WHERE id = 2")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(20);
            }
        }
    }

    /**
     * Collects garbage until Netty has had the chance to see any buffer dropped unreleased: under
     * PARANOID every allocation checks the queue of collected, unreleased buffers and logs
     * {@code LEAK:}.
     */
    private void assertNoLeaks() throws InterruptedException {
        for (int i = 0; i < 10; i++) {
            System.gc();
            Thread.sleep(20);
            ByteBuf probe = PooledByteBufAllocator.DEFAULT.directBuffer(16);
            probe.release();
        }
        assertThat(log.lines()).noneMatch(line -> line.contains("LEAK:"));
    }
}
