package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * 200 clients connected to Shardgate at the same time, each running a few statements of its own:
 * every client gets its own answers, and every write lands once.
 */
@ExtendWith(ProxyClusterExtension.class)
class ConcurrentClientsIT {

    static final int CLIENTS = 200;
    static final int WRITES_PER_CLIENT = 3;

    private static ProxyCluster cluster;

    @BeforeAll
    static void createTable(ProxyCluster shared) throws SQLException {
        cluster = shared;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS concurrent_log");
            s.execute("CREATE TABLE concurrent_log (client INT NOT NULL, seq INT NOT NULL, note VARCHAR(40),"
                    + " PRIMARY KEY (client, seq))");
        }
    }

    @Test
    void twoHundredConcurrentClientsEachGetTheirOwnAnswers() throws Exception {
        // all clients hold their connection open before any of them runs a statement
        CyclicBarrier allConnected = new CyclicBarrier(CLIENTS);
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<List<String>>> results = new ArrayList<>();
            for (int client = 0; client < CLIENTS; client++) {
                int id = client;
                Driver driver = Driver.values()[client % 2];
                Mode mode = Mode.values()[(client / 2) % 2];
                results.add(pool.submit(() -> runClient(id, driver, mode, allConnected)));
            }
            for (int client = 0; client < CLIENTS; client++) {
                assertThat(results.get(client).get(5, TimeUnit.MINUTES))
                        .as("client %d", client)
                        .containsExactly(
                                "echo " + client,
                                "rows " + WRITES_PER_CLIENT,
                                "notes client-" + client + "-0,client-" + client + "-1,client-" + client + "-2");
            }
        } finally {
            pool.shutdownNow();
        }
        try (Connection c = cluster.direct();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*), COUNT(DISTINCT client) FROM concurrent_log")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(CLIENTS * WRITES_PER_CLIENT);
            assertThat(rs.getInt(2)).isEqualTo(CLIENTS);
        }
    }

    private static List<String> runClient(int client, Driver driver, Mode mode, CyclicBarrier allConnected)
            throws Exception {
        List<String> answers = new ArrayList<>();
        try (Connection c = cluster.proxied(driver, mode)) {
            allConnected.await(2, TimeUnit.MINUTES);
            try (PreparedStatement ps = c.prepareStatement("SELECT CONCAT('echo ', ?)")) {
                ps.setInt(1, client);
                answers.add(single(ps));
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO concurrent_log VALUES (?, ?, ?)")) {
                for (int seq = 0; seq < WRITES_PER_CLIENT; seq++) {
                    ps.setInt(1, client);
                    ps.setInt(2, seq);
                    ps.setString(3, "client-" + client + "-" + seq);
                    assertThat(ps.executeUpdate()).isEqualTo(1);
                }
            }
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT CONCAT('rows ', COUNT(*)) FROM concurrent_log WHERE client = ?")) {
                ps.setInt(1, client);
                answers.add(single(ps));
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT CONCAT('notes ', GROUP_CONCAT(note ORDER BY seq))"
                    + " FROM concurrent_log WHERE client = ?")) {
                ps.setInt(1, client);
                answers.add(single(ps));
            }
        }
        return answers;
    }

    private static String single(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }
}
