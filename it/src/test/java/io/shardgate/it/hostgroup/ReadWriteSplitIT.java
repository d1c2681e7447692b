package io.shardgate.it.hostgroup;

import static io.shardgate.it.hostgroup.ReplicatedHostgroup.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.frontend.SessionInfo;
import io.shardgate.router.routing.BackendServers;
import io.shardgate.router.routing.ServerInfo;
import io.shardgate.router.routing.ServerRole;
import io.shardgate.router.routing.ServerStatus;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostgroups with readers against real replication: hostgroup 10 is a MariaDB primary and its
 * replica (schema {@code rw}), hostgroup 20 a standalone server (schema {@code other}). Where a
 * statement ran is read from {@code @@server_id} in the same statement. The read-your-writes window
 * is ten minutes, so no assertion depends on how fast the machine is; the monitor checks every
 * 100 ms and every wait polls a condition under a generous deadline.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReadWriteSplitIT {
    private static final int STANDALONE_ID = 3;

    @TempDir
    static Path dir;

    private static ReplicatedHostgroup group;
    private static MariaDbServer standalone;
    private static Shardgate router;

    @BeforeAll
    static void start() throws Exception {
        group = ReplicatedHostgroup.start(dir);
        standalone = standalone(0);
        try (Connection c = ReplicatedHostgroup.root(group.primary);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE rw.items (id INT PRIMARY KEY, note VARCHAR(40))");
            s.execute("INSERT INTO rw.items VALUES (1, 'one'), (2, 'two')");
        }
        group.awaitReplicaCaughtUp();
        try (Connection c = ReplicatedHostgroup.root(standalone);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE other.things (id INT PRIMARY KEY, note VARCHAR(40))");
        }
        router = router(true);
        assertThat(await(() -> info(10, group.replica).lagSeconds() != null))
                .as("the monitor saw the replica's lag")
                .isTrue();
    }

    /** A router in front of both hostgroups; {@code monitored} false: no health checks, no shunning. */
    private static Shardgate router(boolean monitored) {
        String monitor =
                monitored ? "{interval_millis: 100, timeout_millis: 5000, shun_after_failures: 2}" : "{enabled: false}";
        return Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {port: 0, http_port: 0, data_dir: \""
                        + dir.resolve(monitored ? "router" : "router-unmonitored") + "\"}",
                "users:",
                "  - {name: app, password: app-pw}",
                "hostgroups:",
                "  - id: 10",
                "    writer: \"" + group.primary.address() + "\"",
                "    readers: [{address: \"" + group.replica.address() + "\", weight: 1, max_connections: 10}]",
                "    user: " + ReplicatedHostgroup.USER,
                "    password: " + ReplicatedHostgroup.PASSWORD,
                "    pool: {max_connections: 20, acquire_timeout_millis: 5000}",
                "    monitor: " + monitor,
                "    read_your_writes_millis: 600000",
                "    max_replication_lag: 30",
                "  - id: 20",
                "    writer: \"" + standalone.address() + "\"",
                "    user: " + ReplicatedHostgroup.USER,
                "    password: " + ReplicatedHostgroup.PASSWORD,
                "    pool: {max_connections: 20, acquire_timeout_millis: 5000}",
                "    monitor: " + monitor,
                "schemas:",
                "  - {name: rw, default_hostgroup: 10}",
                "  - {name: other, default_hostgroup: 20}",
                "")));
    }

    private static MariaDbServer standalone(int port) {
        return MariaDbServer.builder()
                .port(port)
                .dataDir(dir.resolve("standalone"))
                .database("other")
                .user(ReplicatedHostgroup.USER, ReplicatedHostgroup.PASSWORD)
                .innodbBufferPoolSize("32M")
                .arg("--server-id=" + STANDALONE_ID)
                .start();
    }

    @AfterAll
    static void stop() {
        if (router != null) {
            router.close();
        }
        if (standalone != null) {
            standalone.close();
        }
        if (group != null) {
            group.close();
        }
    }

    private static Connection connect(String schema) throws SQLException {
        return Driver.MARIADB.connect(router.mysqlPort(), schema, "app", "app-pw", ReplicatedHostgroup.clientOptions());
    }

    private static ServerInfo info(int hostgroup, MariaDbServer server) {
        return router.servers().get(hostgroup, server.address());
    }

    /** {@code @@server_id} and the row count of rw.items, read in one statement. */
    private static long[] whereAndCount(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@server_id, COUNT(*) FROM items")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    private static long serverId(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    @Order(1)
    void readsGoToTheReplicaAndWritesToThePrimary() throws Exception {
        try (Connection reader = connect("rw");
                Connection writer = connect("rw")) {
            for (int i = 0; i < 20; i++) {
                assertThat(whereAndCount(reader)[0]).as("read %d ran on", i).isEqualTo(ReplicatedHostgroup.REPLICA_ID);
            }
            try (Statement s = writer.createStatement()) {
                assertThat(s.executeUpdate("INSERT INTO items VALUES (10, 'ten')"))
                        .isEqualTo(1);
            }
            try (Connection direct = ReplicatedHostgroup.root(group.primary);
                    Statement s = direct.createStatement();
                    ResultSet rs = s.executeQuery("SELECT note FROM rw.items WHERE id = 10")) {
                assertThat(rs.next()).as("the insert reached the primary").isTrue();
            }
            // read-your-writes: the session that wrote reads from the primary, and sees its row
            long[] after = whereAndCount(writer);
            assertThat(after[0]).isEqualTo(ReplicatedHostgroup.PRIMARY_ID);
            assertThat(after[1]).isEqualTo(3);
            // a session that never wrote still reads from the replica
            assertThat(whereAndCount(reader)[0]).isEqualTo(ReplicatedHostgroup.REPLICA_ID);
        }
        group.awaitReplicaCaughtUp();
    }

    @Test
    @Order(2)
    void transactionsLockingReadsAndPinnedSessionsStayOnThePrimary() throws Exception {
        try (Connection c = connect("rw")) {
            assertThat(serverId(c, "SELECT @@server_id FROM items WHERE id = 1 FOR UPDATE"))
                    .as("locking read")
                    .isEqualTo(ReplicatedHostgroup.PRIMARY_ID);
            c.setAutoCommit(false);
            assertThat(serverId(c, "SELECT @@server_id"))
                    .as("in a transaction")
                    .isEqualTo(ReplicatedHostgroup.PRIMARY_ID);
            c.commit();
            c.setAutoCommit(true);
        }
        try (Connection c = connect("rw")) {
            try (Statement s = c.createStatement()) {
                s.execute("START TRANSACTION");
                assertThat(serverId(c, "SELECT @@server_id")).isEqualTo(ReplicatedHostgroup.PRIMARY_ID);
                s.execute("COMMIT");
            }
        }
        try (Connection c = connect("rw")) {
            assertThat(serverId(c, "SELECT @@server_id")).isEqualTo(ReplicatedHostgroup.REPLICA_ID);
            try (Statement s = c.createStatement()) {
                s.execute("SET @mine = 42");
            }
            assertThat(serverId(c, "SELECT @@server_id + 0 * @mine"))
                    .as("user variables live on the primary's server session")
                    .isEqualTo(ReplicatedHostgroup.PRIMARY_ID);
            assertThat(serverId(c, "SELECT @mine")).isEqualTo(42);
            SessionInfo me = router.sessions().stream()
                    .filter(SessionInfo::pinned)
                    .findFirst()
                    .orElseThrow();
            assertThat(me.pinReasons()).contains("user variable used");
            assertThat(me.backendConnections()).isEqualTo(1);
        }
    }

    @Test
    @Order(3)
    void aLaggingReplicaGetsNoReadsUntilItCatchesUp() throws Exception {
        try (Connection direct = ReplicatedHostgroup.root(group.replica);
                Statement s = direct.createStatement()) {
            s.execute("STOP SLAVE SQL_THREAD");
        }
        try (Connection c = connect("rw");
                Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO items VALUES (20, 'while the replica lags')");
        }
        assertThat(await(() -> info(10, group.replica).lagSeconds() == -1L))
                .as("the monitor saw replication stopped")
                .isTrue();
        try (Connection c = connect("rw")) {
            long[] read = whereAndCount(c);
            assertThat(read[0]).as("reads moved to the writer").isEqualTo(ReplicatedHostgroup.PRIMARY_ID);
            assertThat(read[1])
                    .as("and see the write the replica has not applied")
                    .isEqualTo(4);
        }
        try (Connection direct = ReplicatedHostgroup.root(group.replica);
                Statement s = direct.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM rw.items")) {
                rs.next();
                assertThat(rs.getLong(1)).as("the replica really lags").isEqualTo(3);
            }
            s.execute("START SLAVE SQL_THREAD");
        }
        group.awaitReplicaCaughtUp();
        assertThat(await(() -> Long.valueOf(0).equals(info(10, group.replica).lagSeconds())))
                .isTrue();
        try (Connection c = connect("rw")) {
            assertThat(whereAndCount(c)).containsExactly(ReplicatedHostgroup.REPLICA_ID, 4);
        }
    }

    @Test
    @Order(4)
    void offlineSoftDrainsAndOfflineHardCloses() throws Exception {
        BackendServers servers = router.servers();
        try (Connection inTransaction = connect("other");
                Connection other = connect("other")) {
            try (Statement s = inTransaction.createStatement()) {
                s.execute("BEGIN");
                s.executeUpdate("INSERT INTO things VALUES (1, 'before the drain')");
            }
            servers.setStatus(20, standalone.address(), ServerStatus.OFFLINE_SOFT);
            SQLException refused = catchThrowableOfType(SQLException.class, () -> serverId(other, "SELECT 1"));
            assertThat(refused.getErrorCode()).isEqualTo(9002);
            assertThat(refused.getMessage()).contains("OFFLINE_SOFT");
            // the running transaction finishes on its connection
            try (Statement s = inTransaction.createStatement()) {
                s.executeUpdate("INSERT INTO things VALUES (2, 'during the drain')");
                s.execute("COMMIT");
            }
            assertThat(await(() -> info(20, standalone).pool().open() == 0))
                    .as("the drained connection closed when released")
                    .isTrue();
            servers.setStatus(20, standalone.address(), ServerStatus.ONLINE);
            assertThat(serverId(other, "SELECT COUNT(*) FROM things")).isEqualTo(2);

            try (Statement s = inTransaction.createStatement()) {
                s.execute("BEGIN");
                s.executeUpdate("INSERT INTO things VALUES (3, 'rolled back by OFFLINE_HARD')");
            }
            servers.setStatus(20, standalone.address(), ServerStatus.OFFLINE_HARD);
            assertThat(await(() -> info(20, standalone).pool().open() == 0)).isTrue();
            SQLException lost = catchThrowableOfType(SQLException.class, () -> serverId(inTransaction, "SELECT 1"));
            assertThat((Object) lost).as("the session lost its server session").isNotNull();
            servers.setStatus(20, standalone.address(), ServerStatus.ONLINE);
        }
        try (Connection c = connect("other")) {
            assertThat(serverId(c, "SELECT COUNT(*) FROM things"))
                    .as("the hard close rolled back")
                    .isEqualTo(2);
        }
        // a reader drained: reads go to the writer
        servers.setStatus(10, group.replica.address(), ServerStatus.OFFLINE_SOFT);
        try (Connection c = connect("rw")) {
            assertThat(whereAndCount(c)[0]).isEqualTo(ReplicatedHostgroup.PRIMARY_ID);
        }
        servers.setStatus(10, group.replica.address(), ServerStatus.ONLINE);
    }

    @Test
    @Order(5)
    void aKilledServerIsShunnedItsTrafficFailsFastAndRecoversAfterRestart() throws Exception {
        int port = standalone.port();
        try (Connection other = connect("other");
                Connection rw = connect("rw")) {
            assertThat(serverId(other, "SELECT @@server_id")).isEqualTo(STANDALONE_ID);
            ReplicatedHostgroup.kill(standalone);
            SQLException failed = catchThrowableOfType(SQLException.class, () -> serverId(other, "SELECT 1"));
            assertThat(failed.getErrorCode()).isIn(2003, 9002);
            assertThat(await(() -> info(20, standalone).status() == ServerStatus.SHUNNED))
                    .isTrue();
            failed = catchThrowableOfType(SQLException.class, () -> serverId(other, "SELECT 1"));
            assertThat(failed.getErrorCode()).isEqualTo(9002);
            assertThat(failed.getMessage()).contains("SHUNNED");
            // the other hostgroup is untouched
            assertThat(whereAndCount(rw)[1]).isEqualTo(4);

            standalone = standalone(port);
            assertThat(await(() -> info(20, standalone).status() == ServerStatus.ONLINE))
                    .isTrue();
            assertThat(serverId(other, "SELECT @@server_id"))
                    .as("the same client session works again")
                    .isEqualTo(STANDALONE_ID);
        }
    }

    @Test
    @Order(6)
    void aKilledReplicaCostsNoErrorsAndComesBack() throws Exception {
        int port = group.replica.port();
        ReplicatedHostgroup.kill(group.replica);
        try (Shardgate unmonitored = router(false);
                Connection c = Driver.MARIADB.connect(
                        unmonitored.mysqlPort(), "rw", "app", "app-pw", ReplicatedHostgroup.clientOptions())) {
            // nothing shuns the dead replica here: every read tries it, fails to connect, and is
            // retried on the writer before the client sees anything
            for (int i = 0; i < 10; i++) {
                assertThat(whereAndCount(c)).containsExactly(ReplicatedHostgroup.PRIMARY_ID, 4);
            }
            ServerInfo replica = unmonitored.servers().get(10, group.replica.address());
            assertThat(replica.status()).isEqualTo(ServerStatus.ONLINE);
            assertThat(replica.pool().connectFailures())
                    .as("reads that tried the replica")
                    .isEqualTo(10);
        }
        try (Connection c = connect("rw")) {
            // connect failures are retried on the writer, before and after the monitor shuns the replica
            for (int i = 0; i < 20; i++) {
                assertThat(whereAndCount(c)).containsExactly(ReplicatedHostgroup.PRIMARY_ID, 4);
            }
            assertThat(await(() -> info(10, group.replica).status() == ServerStatus.SHUNNED))
                    .isTrue();
            assertThat(whereAndCount(c)).containsExactly(ReplicatedHostgroup.PRIMARY_ID, 4);
            group.replica = ReplicatedHostgroup.replica(dir, port);
            group.awaitReplicaCaughtUp();
            assertThat(await(() -> info(10, group.replica).status() == ServerStatus.ONLINE
                            && Long.valueOf(0).equals(info(10, group.replica).lagSeconds())))
                    .isTrue();
            assertThat(whereAndCount(c)).containsExactly(ReplicatedHostgroup.REPLICA_ID, 4);
        }
    }

    @Test
    @Order(7)
    void aWriterTurnedReadOnlyAndAReaderTurnedWritableSwapRoles() throws Exception {
        try (Connection primary = ReplicatedHostgroup.root(group.primary);
                Connection replica = ReplicatedHostgroup.root(group.replica);
                Statement p = primary.createStatement();
                Statement r = replica.createStatement()) {
            p.execute("SET GLOBAL read_only = 1");
            r.execute("SET GLOBAL read_only = 0");
            try {
                assertThat(await(() -> info(10, group.replica).role() == ServerRole.WRITER))
                        .as("the former replica became the writer")
                        .isTrue();
                assertThat(info(10, group.primary).role()).isEqualTo(ServerRole.READER);
                try (Connection c = connect("rw")) {
                    c.setAutoCommit(false);
                    assertThat(serverId(c, "SELECT @@server_id")).isEqualTo(ReplicatedHostgroup.REPLICA_ID);
                    c.rollback();
                }
            } finally {
                r.execute("SET GLOBAL read_only = 1");
                p.execute("SET GLOBAL read_only = 0");
            }
            assertThat(await(() -> info(10, group.primary).role() == ServerRole.WRITER))
                    .isTrue();
        }
    }
}
