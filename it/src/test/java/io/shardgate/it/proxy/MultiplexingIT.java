package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Multiplexing: many client sessions share few backend connections, yet each sees exactly its own
 * session — schema, session variables, user variables, transactions, LAST_INSERT_ID() — as if it
 * had a server session of its own. Small pools (often a single connection) force every statement
 * of interleaved sessions through the same server sessions, so any state leaking between them
 * shows up.
 */
@ExtendWith(ProxyClusterExtension.class)
class MultiplexingIT {
    private static ProxyCluster cluster;

    @TempDir
    Path dataDir;

    @BeforeAll
    static void createTables(ProxyCluster shared) throws SQLException {
        cluster = shared;
        try (Connection c = Driver.MARIADB.connect(
                        cluster.backend().port(),
                        ProxyCluster.SCHEMA,
                        "root",
                        cluster.backend().rootPassword());
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS mx_items");
            s.execute(
                    "CREATE TABLE mx_items (id INT AUTO_INCREMENT PRIMARY KEY, owner INT NOT NULL, note VARCHAR(40))");
            s.execute("CREATE DATABASE IF NOT EXISTS mx_other");
            s.execute("CREATE TABLE IF NOT EXISTS mx_other.marker (name VARCHAR(20))");
            s.execute("DELETE FROM mx_other.marker");
            s.execute("INSERT INTO mx_other.marker VALUES ('other')");
            s.execute("GRANT ALL ON mx_other.* TO '" + ProxyCluster.BACKEND_USER + "'@'%'");
        }
    }

    /** A router with one event loop, so every session can share every pooled connection. */
    private Shardgate router(int poolSize, int acquireTimeoutMillis) {
        return Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {port: 0, http_port: 0, io_threads: 1, data_dir: \"" + dataDir + "\"}",
                "users:",
                "  - {name: app, password: app-pw}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + cluster.backend().address() + "\", user: " + ProxyCluster.BACKEND_USER
                        + ", password: " + ProxyCluster.BACKEND_PASSWORD + ", pool: {max_connections: " + poolSize
                        + ", acquire_timeout_millis: " + acquireTimeoutMillis + "}}",
                "")));
    }

    private static Connection connect(Shardgate router, Driver driver, String schema) throws SQLException {
        return driver.connect(
                router.mysqlPort(),
                schema,
                "app",
                "app-pw",
                Map.of("connectTimeout", "30000", "socketTimeout", "60000"));
    }

    private static String scalar(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }

    @Test
    void manySessionsShareAFewBackendConnections() throws Exception {
        int clients = 300;
        try (Shardgate router = router(8, 30_000)) {
            List<Connection> sessions = new ArrayList<>();
            try {
                for (int i = 0; i < clients; i++) {
                    // one driver: connections of one kind (capabilities, character set) serve everyone
                    sessions.add(connect(router, Driver.MYSQL, ProxyCluster.SCHEMA));
                }
                ExecutorService pool = Executors.newFixedThreadPool(32);
                AtomicInteger checked = new AtomicInteger();
                List<Future<?>> work = new ArrayList<>();
                for (int i = 0; i < clients; i++) {
                    Connection c = sessions.get(i);
                    int me = i;
                    work.add(pool.submit(() -> {
                        for (int q = 0; q < 10; q++) {
                            try (PreparedStatement ps = c.prepareStatement("SELECT ? + 0, DATABASE()")) {
                                ps.setInt(1, me * 100 + q);
                                try (ResultSet rs = ps.executeQuery()) {
                                    assertThat(rs.next()).isTrue();
                                    assertThat(rs.getInt(1)).isEqualTo(me * 100 + q);
                                    assertThat(rs.getString(2)).isEqualTo(ProxyCluster.SCHEMA);
                                }
                            }
                            checked.incrementAndGet();
                        }
                        return null;
                    }));
                }
                for (Future<?> f : work) {
                    f.get();
                }
                pool.shutdown();
                assertThat(checked.get()).isEqualTo(clients * 10);
                assertThat(router.poolStats().open())
                        .as("backend connections open")
                        .isLessThanOrEqualTo(8);
                assertThat(router.poolStats().created())
                        .as("backend connections ever opened")
                        .isLessThanOrEqualTo(8);
            } finally {
                for (Connection c : sessions) {
                    c.close();
                }
            }
        }
    }

    @Test
    void sessionVariablesAndSchemasFollowEachSessionThroughOneConnection() throws SQLException {
        try (Shardgate router = router(1, 30_000);
                Connection east = connect(router, Driver.MYSQL, ProxyCluster.SCHEMA);
                Connection west = connect(router, Driver.MYSQL, "mx_other")) {
            try (Statement s = east.createStatement()) {
                s.execute("SET time_zone = '+05:00', sql_mode = 'ANSI_QUOTES'");
            }
            try (Statement s = west.createStatement()) {
                s.execute("SET SESSION time_zone = '-03:00'");
            }
            for (int i = 0; i < 5; i++) {
                assertThat(scalar(east, "SELECT @@time_zone")).isEqualTo("+05:00");
                assertThat(scalar(west, "SELECT @@time_zone")).isEqualTo("-03:00");
                assertThat(scalar(east, "SELECT @@sql_mode")).isEqualTo("ANSI_QUOTES");
                assertThat(scalar(west, "SELECT @@sql_mode")).doesNotContain("ANSI_QUOTES");
                assertThat(scalar(east, "SELECT DATABASE()")).isEqualTo(ProxyCluster.SCHEMA);
                assertThat(scalar(west, "SELECT name FROM marker")).isEqualTo("other");
            }
            try (Statement s = east.createStatement()) {
                s.execute("USE mx_other");
            }
            assertThat(scalar(east, "SELECT name FROM marker")).isEqualTo("other");
            assertThat(scalar(west, "SELECT DATABASE()")).isEqualTo("mx_other");
            assertThat(router.poolStats().created())
                    .as("one backend connection served both")
                    .isEqualTo(1);
        }
    }

    @Test
    void userVariablesPinTheirSession() throws SQLException {
        try (Shardgate router = router(2, 30_000);
                Connection pinned = connect(router, Driver.MYSQL, ProxyCluster.SCHEMA);
                Connection other = connect(router, Driver.MYSQL, ProxyCluster.SCHEMA)) {
            try (Statement s = pinned.createStatement()) {
                s.execute("SET @mine = 'kept'");
            }
            for (int i = 0; i < 5; i++) {
                assertThat(scalar(other, "SELECT @mine")).isNull();
                assertThat(scalar(pinned, "SELECT @mine")).isEqualTo("kept");
            }
        }
    }

    @Test
    void lastInsertIdReadsTheSessionsOwnInsert() throws SQLException {
        try (Shardgate router = router(2, 30_000);
                Connection a = connect(router, Driver.MYSQL, ProxyCluster.SCHEMA);
                Connection b = connect(router, Driver.MYSQL, ProxyCluster.SCHEMA);
                Connection direct = cluster.direct()) {
            for (int i = 0; i < 3; i++) {
                // both insert before either asks: without the hold, the idle connection a session
                // borrows next is the other's (most recently used first) and holds the other's id
                try (Statement s = a.createStatement()) {
                    s.executeUpdate("INSERT INTO mx_items (owner, note) VALUES (1, 'a')");
                }
                try (Statement s = b.createStatement()) {
                    s.executeUpdate("INSERT INTO mx_items (owner, note) VALUES (2, 'b')");
                }
                assertThat(scalar(a, "SELECT LAST_INSERT_ID()"))
                        .isEqualTo(scalar(direct, "SELECT MAX(id) FROM mx_items WHERE owner = 1"));
                assertThat(scalar(b, "SELECT LAST_INSERT_ID()"))
                        .isEqualTo(scalar(direct, "SELECT MAX(id) FROM mx_items WHERE owner = 2"));
            }
        }
    }

    @Test
    void aTransactionHoldsItsConnectionAndAnExhaustedPoolAnswersAnError() throws SQLException {
        try (Shardgate router = router(1, 400);
                Connection tx = connect(router, Driver.MYSQL, ProxyCluster.SCHEMA);
                Connection waiting = connect(router, Driver.MARIADB, ProxyCluster.SCHEMA)) {
            tx.setAutoCommit(false);
            try (Statement s = tx.createStatement()) {
                s.executeUpdate("UPDATE mx_items SET note = 'uncommitted' WHERE owner = 2");
            }
            SQLException e = catchThrowableOfType(SQLException.class, () -> scalar(waiting, "SELECT 1"));
            assertThat((Object) e)
                    .as("the only connection is held by an open transaction")
                    .isNotNull();
            assertThat(e.getErrorCode()).isEqualTo(9001);
            assertThat(e.getMessage()).contains("Max connect timeout reached while reaching hostgroup 10 after 400ms");
            tx.rollback();
            tx.setAutoCommit(true);
            // the waiting session is still usable, and the rolled-back update is nowhere
            assertThat(scalar(waiting, "SELECT COUNT(*) FROM mx_items WHERE note = 'uncommitted'"))
                    .isEqualTo("0");
            assertThat(scalar(tx, "SELECT COUNT(*) FROM mx_items WHERE note = 'uncommitted'"))
                    .isEqualTo("0");
        }
    }

    @Test
    void serverPreparedStatementsAreMultiplexedAndPreparedAgainWhereNeeded() throws SQLException {
        Map<String, String> serverPrepared = Map.of("useServerPrepStmts", "true", "cachePrepStmts", "false");
        try (Shardgate router = router(1, 30_000);
                Connection a =
                        Driver.MYSQL.connect(router.mysqlPort(), ProxyCluster.SCHEMA, "app", "app-pw", serverPrepared);
                Connection b =
                        Driver.MYSQL.connect(router.mysqlPort(), ProxyCluster.SCHEMA, "app", "app-pw", serverPrepared);
                Connection root = Driver.MARIADB.connect(
                        cluster.backend().port(),
                        ProxyCluster.SCHEMA,
                        "root",
                        cluster.backend().rootPassword())) {
            String countSql = "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
                    + " WHERE VARIABLE_NAME = 'PREPARED_STMT_COUNT'";
            // the count is server-wide: other routers' pooled connections keep theirs
            int before = Integer.parseInt(scalar(root, countSql));
            try (Statement s = a.createStatement()) {
                // a's server session differs from b's, so every switch resets the one connection,
                // which deallocates its prepared statements: they must be prepared again, lazily
                s.execute("SET time_zone = '+01:00'");
            }
            try (PreparedStatement plusOne = a.prepareStatement("SELECT ? + 1, @@time_zone");
                    PreparedStatement twice = b.prepareStatement("SELECT ? * 2, @@time_zone")) {
                for (int i = 0; i < 6; i++) {
                    plusOne.setInt(1, i);
                    try (ResultSet rs = plusOne.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getInt(1)).isEqualTo(i + 1);
                        assertThat(rs.getString(2)).isEqualTo("+01:00");
                    }
                    twice.setLong(1, i);
                    try (ResultSet rs = twice.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getLong(1)).isEqualTo(2L * i);
                        assertThat(rs.getString(2)).isNotEqualTo("+01:00");
                    }
                }
            }
            assertThat(router.poolStats().created())
                    .as("one backend connection served both")
                    .isEqualTo(1);
            assertThat(Integer.parseInt(scalar(root, countSql)) - before)
                    .as("prepared statements this test left on the server")
                    .isLessThanOrEqualTo(2);
        }
    }

    @Test
    void manySessionsShareConnectionsWithServerPreparedStatements() throws Exception {
        int clients = 100;
        Map<String, String> serverPrepared = Map.of("useServerPrepStmts", "true");
        try (Shardgate router = router(4, 30_000)) {
            List<Connection> sessions = new ArrayList<>();
            try {
                for (int i = 0; i < clients; i++) {
                    sessions.add(Driver.MARIADB.connect(
                            router.mysqlPort(), ProxyCluster.SCHEMA, "app", "app-pw", serverPrepared));
                }
                ExecutorService pool = Executors.newFixedThreadPool(16);
                List<Future<?>> work = new ArrayList<>();
                for (int i = 0; i < clients; i++) {
                    Connection c = sessions.get(i);
                    int me = i;
                    work.add(pool.submit(() -> {
                        try (PreparedStatement ps = c.prepareStatement("SELECT ?, CONCAT('client-', ?)")) {
                            for (int q = 0; q < 10; q++) {
                                ps.setInt(1, me * 100 + q);
                                ps.setString(2, Integer.toString(me));
                                try (ResultSet rs = ps.executeQuery()) {
                                    assertThat(rs.next()).isTrue();
                                    assertThat(rs.getInt(1)).isEqualTo(me * 100 + q);
                                    assertThat(rs.getString(2)).isEqualTo("client-" + me);
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : work) {
                    f.get();
                }
                pool.shutdown();
                assertThat(router.poolStats().created())
                        .as("backend connections ever opened")
                        .isLessThanOrEqualTo(4);
            } finally {
                for (Connection c : sessions) {
                    c.close();
                }
            }
        }
    }
}
