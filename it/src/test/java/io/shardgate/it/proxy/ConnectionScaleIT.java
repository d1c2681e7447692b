package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.pool.PoolStats;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many clients, few backend connections: 2000 client connections run point selects and updates
 * through a router whose pool may open at most 100 connections to the server, some of them in
 * transactions and some pinned for life by user variables. Every statement must succeed, every
 * update must land exactly once (checked row by row against what the clients did), and the
 * server must never see more connections than the cap (its own Max_used_connections).
 */
@ExtendWith(ProxyClusterExtension.class)
class ConnectionScaleIT {
    private static final int CLIENTS = 2000;
    private static final int CAP = 100;
    private static final int ROWS = 500;
    private static final int STATEMENTS_PER_CLIENT = 8;
    /** Clients that assign a user variable: each pins a backend connection for its whole life. */
    private static final int PINNED_FOR_LIFE = 30;
    /** Clients that run their updates in explicit transactions (pinned while each is open). */
    private static final int TRANSACTIONAL = 300;

    private static ProxyCluster cluster;

    @TempDir
    Path dataDir;

    @BeforeAll
    static void createTable(ProxyCluster shared) throws SQLException {
        cluster = shared;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS scale_accounts");
            s.execute("CREATE TABLE scale_accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
            StringBuilder insert = new StringBuilder("INSERT INTO scale_accounts VALUES ");
            for (int i = 1; i <= ROWS; i++) {
                insert.append(i == 1 ? "" : ",").append("(").append(i).append(", 0)");
            }
            s.execute(insert.toString());
        }
    }

    private Shardgate router() {
        return Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                // 2000 logins at once on a shared 2-core machine: backend logins may queue for seconds
                "server: {port: 0, http_port: 0, connect_timeout_millis: 30000, data_dir: \"" + dataDir + "\"}",
                "users:",
                "  - {name: app, password: app-pw}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + cluster.backend().address() + "\", user: " + ProxyCluster.BACKEND_USER
                        + ", password: " + ProxyCluster.BACKEND_PASSWORD + ", pool: {max_connections: " + CAP
                        + ", acquire_timeout_millis: 60000}, monitor: {enabled: false}}",
                "")));
    }

    private static long status(Connection direct, String name) throws SQLException {
        try (Statement s = direct.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE '" + name + "'")) {
            rs.next();
            return rs.getLong(2);
        }
    }

    @Test
    void twoThousandClientsShareAHundredBackendConnectionsWithoutErrors() throws Exception {
        try (Shardgate router = router();
                Connection direct = cluster.direct()) {
            try (Statement s = direct.createStatement()) {
                s.execute("FLUSH STATUS"); // Max_used_connections restarts from the connections open now
            }
            long openBefore = status(direct, "Threads_connected");
            ExecutorService threads = Executors.newFixedThreadPool(200);
            List<Connection> clients = Collections.synchronizedList(new ArrayList<>());
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            AtomicLongArray added = new AtomicLongArray(ROWS + 1);
            try {
                List<Future<Connection>> opening = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    opening.add(threads.submit(() -> Driver.MYSQL.connect(
                            router.mysqlPort(),
                            ProxyCluster.SCHEMA,
                            "app",
                            "app-pw",
                            Map.of("connectTimeout", "120000", "socketTimeout", "180000"))));
                }
                for (Future<Connection> f : opening) {
                    clients.add(f.get());
                }
                assertThat(router.clientConnections()).isEqualTo(CLIENTS);
                List<Future<?>> work = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    Connection c = clients.get(i);
                    int client = i;
                    work.add(threads.submit(() -> {
                        try {
                            run(c, client, added);
                        } catch (Throwable e) {
                            errors.add(e);
                        }
                    }));
                }
                for (Future<?> f : work) {
                    f.get();
                }
                assertThat(errors).as("statements that failed").isEmpty();
                for (PoolStats stats : router.allPoolStats()) {
                    assertThat(stats.peakOpen())
                            .as("most connections open at once in %s", stats.pool())
                            .isLessThanOrEqualTo(CAP);
                    assertThat(stats.timeouts()).isZero();
                }
            } finally {
                for (Connection c : clients) {
                    c.close();
                }
                threads.shutdown();
            }
            // Besides the pool: what was open before (our direct connection, the shared router's
            // pool), that router's monitor check, and connections this router closed (handed from
            // one event loop to another) that the server has not reaped yet: a few, not thousands
            assertThat(status(direct, "Max_used_connections"))
                    .as("connections the server saw at once (%d open before)", openBefore)
                    .isLessThanOrEqualTo(openBefore + CAP + 5);
            try (Statement s = direct.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id, balance FROM scale_accounts ORDER BY id")) {
                while (rs.next()) {
                    assertThat(rs.getLong(2)).as("balance of %d", rs.getInt(1)).isEqualTo(added.get(rs.getInt(1)));
                }
            }
        }
    }

    /** One client's statements: point selects and updates; some in transactions, some with user variables. */
    private static void run(Connection c, int client, AtomicLongArray added) throws SQLException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        boolean variables = client < PINNED_FOR_LIFE;
        boolean transactional = !variables && client < PINNED_FOR_LIFE + TRANSACTIONAL;
        try (Statement s = c.createStatement();
                PreparedStatement select = c.prepareStatement("SELECT balance FROM scale_accounts WHERE id = ?");
                PreparedStatement update =
                        c.prepareStatement("UPDATE scale_accounts SET balance = balance + ? WHERE id = ?")) {
            if (variables) {
                s.execute("SET @mine = " + client);
            }
            for (int n = 0; n < STATEMENTS_PER_CLIENT; n++) {
                int id = 1 + random.nextInt(ROWS);
                if (random.nextInt(10) < 6) {
                    select.setInt(1, id);
                    try (ResultSet rs = select.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                    }
                    continue;
                }
                int amount = 1 + random.nextInt(5);
                if (transactional) {
                    s.execute("BEGIN");
                }
                update.setInt(1, amount);
                update.setInt(2, id);
                assertThat(update.executeUpdate()).isEqualTo(1);
                if (transactional) {
                    s.execute("COMMIT");
                }
                added.addAndGet(id, amount);
            }
            if (variables) {
                try (ResultSet rs = s.executeQuery("SELECT @mine")) {
                    rs.next();
                    assertThat(rs.getInt(1))
                            .as("the client's own user variable")
                            .isEqualTo(client);
                }
            }
        }
    }
}
