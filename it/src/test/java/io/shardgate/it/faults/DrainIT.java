package io.shardgate.it.faults;

import static io.shardgate.it.faults.FaultCluster.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.Driver;
import io.shardgate.it.server.RouterProcess;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Graceful drain of a router process on SIGTERM (what Kubernetes sends after the preStop hook):
 * {@code /ready} answers 503, new connections are refused, an idle client is disconnected between
 * statements, a client in a transaction still runs statements and COMMITs within {@code
 * server.drain_timeout_millis} and is disconnected after it, and the process exits; a transaction
 * still open when the grace is over is closed and rolled back, and the process exits all the same.
 */
class DrainIT {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void idleClientsLeaveAtOnceAndATransactionCommitsWithinTheGrace() throws Exception {
        try (FaultCluster cluster = new FaultCluster(dir)) {
            cluster.createItems();
            int port = RouterProcess.freePort();
            int http = RouterProcess.freePort();
            // a grace far longer than the test needs: nothing here waits for it to pass
            try (RouterProcess router = new RouterProcess(dir, yaml(cluster, port, http, 120_000), port)) {
                router.start();
                eventually("router ready", Duration.ofSeconds(60), () -> ready(http) == 200);
                Connection idleMariaDb = cluster.proxied(port, Driver.MARIADB, Map.of());
                Connection idleMySql = cluster.proxied(port, Driver.MYSQL, Map.of());
                Connection tx = cluster.proxied(port, Driver.MYSQL, Map.of());
                for (Connection c : new Connection[] {idleMariaDb, idleMySql, tx}) {
                    assertThat(selectOne(c)).isEqualTo(1);
                }
                tx.setAutoCommit(false);
                try (Statement s = tx.createStatement()) {
                    s.executeUpdate("INSERT INTO items (id, qty, note) VALUES (11, 1, 'before SIGTERM')");
                }

                router.terminate();
                eventually("/ready answers 503", Duration.ofSeconds(30), () -> ready(http) == 503);
                assertThat(readyBody(http)).contains("draining");
                eventually("the MySQL port refuses connections", Duration.ofSeconds(30), () -> refused(port));
                assertThatThrownBy(() -> cluster.proxied(port, Driver.MARIADB, Map.of()))
                        .isInstanceOf(SQLException.class);
                for (Connection idle : new Connection[] {idleMariaDb, idleMySql}) {
                    eventually("the idle client is disconnected", Duration.ofSeconds(30), () -> !valid(idle));
                    assertThatThrownBy(() -> selectOne(idle)).isInstanceOf(SQLException.class);
                }

                // the transaction goes on: another statement, then COMMIT
                assertThat(router.alive())
                        .as("the open transaction holds the drain")
                        .isTrue();
                try (Statement s = tx.createStatement()) {
                    s.executeUpdate("INSERT INTO items (id, qty, note) VALUES (12, 2, 'during the drain')");
                }
                tx.commit();
                eventually("the client is disconnected after its COMMIT", Duration.ofSeconds(30), () -> !valid(tx));
                assertThat(router.awaitExit(60))
                        .as("the router exits once no session is left")
                        .isTrue();
                assertThat(router.output())
                        .contains("drain: every session ended")
                        .doesNotContain("LEAK:");
                for (Connection c : new Connection[] {idleMariaDb, idleMySql, tx}) {
                    c.close();
                }
            }
            try (Connection shard = cluster.direct(10);
                    Statement s = shard.createStatement();
                    ResultSet rows = s.executeQuery("SELECT id, note FROM items WHERE id IN (11, 12) ORDER BY id")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(2)).isEqualTo("before SIGTERM");
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(2)).isEqualTo("during the drain");
                assertThat(rows.next()).isFalse();
            }
        }
    }

    @Test
    @Timeout(300)
    void aTransactionStillOpenAfterTheGraceIsRolledBackAndTheRouterExits() throws Exception {
        try (FaultCluster cluster = new FaultCluster(dir)) {
            cluster.createItems();
            int port = RouterProcess.freePort();
            int http = RouterProcess.freePort();
            try (RouterProcess router = new RouterProcess(dir, yaml(cluster, port, http, 1_000), port)) {
                router.start();
                eventually("router ready", Duration.ofSeconds(60), () -> ready(http) == 200);
                Connection tx = cluster.proxied(port, Driver.MARIADB, Map.of());
                tx.setAutoCommit(false);
                try (Statement s = tx.createStatement()) {
                    s.executeUpdate("INSERT INTO items (id, qty, note) VALUES (21, 1, 'never committed')");
                }
                router.terminate();
                assertThat(router.awaitExit(120))
                        .as("the router exits after the grace")
                        .isTrue();
                assertThat(router.output())
                        .contains("closing 1 session(s) still open")
                        .doesNotContain("LEAK:");
                assertThatThrownBy(tx::commit).isInstanceOf(SQLException.class);
                tx.close();
            }
            try (Connection shard = cluster.direct(10);
                    Statement s = shard.createStatement();
                    ResultSet rows = s.executeQuery("SELECT COUNT(*) FROM items WHERE id = 21")) {
                rows.next();
                assertThat(rows.getInt(1)).as("rolled back by the backend").isZero();
            }
        }
    }

    private static String yaml(FaultCluster cluster, int port, int http, int drainMillis) throws IOException {
        String yaml = cluster.routerYaml(port, "drain_timeout_millis: " + drainMillis, false);
        assertThat(yaml).contains("http_port: 0");
        return yaml.replace("http_port: 0", "http_port: " + http);
    }

    private static int selectOne(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT 1")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static boolean valid(Connection c) {
        try {
            return c.isValid(5);
        } catch (SQLException e) {
            return false;
        }
    }

    private static boolean refused(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
            return false;
        } catch (ConnectException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The status of GET /ready, or -1 while the HTTP port does not answer. */
    private static int ready(int http) {
        try {
            return HTTP.send(request(http), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String readyBody(int http) throws IOException, InterruptedException {
        return HTTP.send(request(http), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static HttpRequest request(int http) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/ready"))
                .timeout(Duration.ofSeconds(5))
                .build();
    }
}
