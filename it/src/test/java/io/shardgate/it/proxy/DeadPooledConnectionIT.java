package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pooled backend connections that the server ended while they sat idle in the pool — killed with
 * {@code KILL} from another session, or closed by the server's {@code wait_timeout} — are never
 * handed to a statement as if alive: the clients see no error, every statement runs exactly once
 * on a fresh connection — also when the kill races with a statement the router is about to send
 * on that connection (it runs again elsewhere). The router logs in to MariaDB as its own user here, so the test kills
 * only this router's connections (the shared cluster's router keeps its pool).
 */
@ExtendWith(ProxyClusterExtension.class)
class DeadPooledConnectionIT {
    private static final String BACKEND_USER = "dead_pool_it";
    private static final String BACKEND_PASSWORD = "dead-pool-pw";
    private static final int CLIENTS = 12;
    private static final int POOL = 4;

    private static ProxyCluster cluster;

    @TempDir
    Path dataDir;

    @BeforeAll
    static void createTable(ProxyCluster shared) throws SQLException {
        cluster = shared;
        try (Connection c = root();
                Statement s = c.createStatement()) {
            s.execute("CREATE USER IF NOT EXISTS '" + BACKEND_USER + "'@'%' IDENTIFIED BY '" + BACKEND_PASSWORD + "'");
            s.execute("GRANT ALL ON " + ProxyCluster.SCHEMA + ".* TO '" + BACKEND_USER + "'@'%'");
            s.execute("DROP TABLE IF EXISTS dead_pool_counters");
            s.execute("CREATE TABLE dead_pool_counters (id INT PRIMARY KEY, hits INT NOT NULL)");
            StringBuilder insert = new StringBuilder("INSERT INTO dead_pool_counters VALUES ");
            for (int i = 0; i < CLIENTS; i++) {
                insert.append(i == 0 ? "" : ",").append("(").append(i).append(", 0)");
            }
            s.execute(insert.toString());
        }
    }

    private static Connection root() throws SQLException {
        return Driver.MARIADB.connect(
                cluster.backend().port(),
                ProxyCluster.SCHEMA,
                "root",
                cluster.backend().rootPassword());
    }

    private Shardgate router() {
        return router(POOL);
    }

    private Shardgate router(int pool) {
        return Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {port: 0, http_port: 0, data_dir: \"" + dataDir + "\"}",
                "users:",
                "  - {name: app, password: app-pw}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + cluster.backend().address() + "\", user: " + BACKEND_USER
                        + ", password: " + BACKEND_PASSWORD + ", pool: {max_connections: " + pool
                        + ", acquire_timeout_millis: 30000}, monitor: {enabled: false}}",
                "")));
    }

    private static List<Connection> clients(Shardgate router) throws SQLException {
        List<Connection> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(Driver.MYSQL.connect(
                    router.mysqlPort(),
                    ProxyCluster.SCHEMA,
                    "app",
                    "app-pw",
                    // half of them with server-side prepared statements (COM_STMT_EXECUTE)
                    Map.of(
                            "connectTimeout",
                            "30000",
                            "socketTimeout",
                            "60000",
                            "useServerPrepStmts",
                            i % 2 == 0 ? "true" : "false")));
        }
        return clients;
    }

    /** Every client reads its row and counts one hit on it; any error fails the test. */
    private static void round(List<Connection> clients, int expectedHitsBefore) throws SQLException {
        for (int i = 0; i < clients.size(); i++) {
            try (Statement s = clients.get(i).createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT hits FROM dead_pool_counters WHERE id = " + i)) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).as("hits of row %d", i).isEqualTo(expectedHitsBefore);
                }
                assertThat(s.executeUpdate("UPDATE dead_pool_counters SET hits = hits + 1 WHERE id = " + i))
                        .isEqualTo(1);
            }
        }
    }

    /** The router's backend connections the server holds now (Sleep: idle in the router's pool). */
    private static List<Long> backendThreads(Statement s) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (ResultSet rs =
                s.executeQuery("SELECT id FROM information_schema.processlist WHERE user = '" + BACKEND_USER + "'")) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    private static void resetCounters() throws SQLException {
        try (Connection c = root();
                Statement s = c.createStatement()) {
            s.execute("UPDATE dead_pool_counters SET hits = 0");
        }
    }

    @Test
    void pooledConnectionsKilledOnTheServerAreReplacedWithoutAClientError() throws Exception {
        resetCounters();
        try (Shardgate router = router();
                Connection admin = root();
                Statement killer = admin.createStatement()) {
            List<Connection> clients = clients(router);
            try {
                round(clients, 0);
                List<Long> pooled = backendThreads(killer);
                assertThat(pooled).as("the router's pooled connections").isNotEmpty();
                long createdBefore = router.poolStats().created();
                for (int kill = 0; kill < 3; kill++) {
                    for (long id : backendThreads(killer)) {
                        killer.execute("KILL CONNECTION " + id);
                    }
                    round(clients, kill + 1);
                }
                assertThat(router.poolStats().created())
                        .as("connections opened to replace the killed ones")
                        .isGreaterThan(createdBefore);
                assertThat(router.poolStats().open()).isLessThanOrEqualTo(POOL);
            } finally {
                for (Connection c : clients) {
                    c.close();
                }
            }
        }
    }

    @Test
    void pooledConnectionsClosedByWaitTimeoutAreReplacedWithoutAClientError() throws Exception {
        resetCounters();
        try (Connection admin = root();
                Statement global = admin.createStatement()) {
            String before;
            try (ResultSet rs = global.executeQuery("SELECT @@GLOBAL.wait_timeout")) {
                rs.next();
                before = rs.getString(1);
            }
            // connections take the global value when they log in: the router's pool opens after this
            global.execute("SET GLOBAL wait_timeout = 1");
            try (Shardgate router = router()) {
                List<Connection> clients = clients(router);
                try {
                    round(clients, 0);
                    long createdBefore = router.poolStats().created();
                    for (int pause = 0; pause < 2; pause++) {
                        // idle past wait_timeout: the server closes every pooled connection
                        long deadline = System.nanoTime() + 30_000_000_000L;
                        while (!backendThreads(global).isEmpty() && System.nanoTime() < deadline) {
                            Thread.sleep(200);
                        }
                        assertThat(backendThreads(global))
                                .as("pooled connections left after wait_timeout")
                                .isEmpty();
                        round(clients, pause + 1);
                    }
                    assertThat(router.poolStats().created()).isGreaterThan(createdBefore);
                } finally {
                    for (Connection c : clients) {
                        c.close();
                    }
                }
            } finally {
                global.execute("SET GLOBAL wait_timeout = " + before);
            }
        }
    }

    @Test
    void readsSentOnConnectionsKilledAtThatMomentRunAgainElsewhere() throws Exception {
        try (Shardgate router = router(16);
                Connection admin = root();
                Statement killer = admin.createStatement()) {
            List<Connection> clients = clients(router);
            ExecutorService pool = Executors.newFixedThreadPool(clients.size());
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong reads = new AtomicLong();
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            try {
                List<Future<?>> work = new ArrayList<>();
                for (int i = 0; i < clients.size(); i++) {
                    Connection c = clients.get(i);
                    int row = i;
                    work.add(pool.submit(() -> {
                        // text reads and server-side prepared reads (prepared again on each new connection)
                        try (Statement s = c.createStatement();
                                java.sql.PreparedStatement ps =
                                        c.prepareStatement("SELECT id FROM dead_pool_counters WHERE id = ?")) {
                            while (!stop.get()) {
                                try (ResultSet rs =
                                        s.executeQuery("SELECT id FROM dead_pool_counters WHERE id = " + row)) {
                                    assertThat(rs.next()).isTrue();
                                    assertThat(rs.getInt(1)).isEqualTo(row);
                                }
                                ps.setInt(1, row);
                                try (ResultSet rs = ps.executeQuery()) {
                                    assertThat(rs.next()).isTrue();
                                    assertThat(rs.getInt(1)).isEqualTo(row);
                                }
                                reads.addAndGet(2);
                            }
                        } catch (Throwable e) {
                            errors.add(e);
                        }
                        return null;
                    }));
                }
                // kill the router's idle pooled connections until some were killed just as a
                // statement was sent on them (bounded: 30 s)
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                int rounds = 0;
                while ((router.metrics().statementsRetried() < 5 || rounds < 20)
                        && System.nanoTime() < deadline
                        && errors.isEmpty()) {
                    List<Long> idle = new ArrayList<>();
                    try (ResultSet rs =
                            killer.executeQuery("SELECT id FROM information_schema.processlist WHERE user = '"
                                    + BACKEND_USER + "' AND command = 'Sleep'")) {
                        while (rs.next()) {
                            idle.add(rs.getLong(1));
                        }
                    }
                    for (long id : idle) {
                        try {
                            killer.execute("KILL CONNECTION " + id);
                        } catch (SQLException gone) {
                            // closed meanwhile (the router retired it)
                        }
                    }
                    rounds++;
                    Thread.sleep(50);
                }
                stop.set(true);
                for (Future<?> f : work) {
                    f.get(60, TimeUnit.SECONDS);
                }
                assertThat(errors).as("client errors").isEmpty();
                assertThat(reads.get()).isPositive();
                assertThat(router.metrics().statementsRetried())
                        .as("statements that ran again on another connection")
                        .isPositive();
            } finally {
                stop.set(true);
                pool.shutdownNow();
                for (Connection c : clients) {
                    c.close();
                }
            }
        }
    }
}
