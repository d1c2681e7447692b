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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23: after a statement without tables that raised nothing, on the connection holding the
 * session's warnings, the router asks that connection how many warnings its area still holds
 * ({@code SHOW WARNINGS LIMIT 1}) before it ends the command — the client already has its whole
 * response. A connection lost at exactly that question (a {@link QueryTrapProxy} closes it; in
 * {@code Issue23WarningsIT} a KILL from another session met it by chance and the client's session
 * was closed under it) loses only those warnings: the session goes on, and SHOW WARNINGS is refused
 * (1235) rather than answered empty, until a statement replaces the area.
 */
@ExtendWith(ProxyClusterExtension.class)
class Issue23WarningCountLossIT {
    private static ProxyCluster cluster;

    @TempDir
    Path dataDir;

    private QueryTrapProxy trap;
    private Shardgate router;
    private CapturedLog log;

    @BeforeEach
    void start(ProxyCluster shared) throws Exception {
        cluster = shared;
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

    @Test
    void connectionLostWhileTheRouterCountsTheHeldWarningsKeepsTheSession() throws Exception {
        for (Driver driver : Driver.values()) {
            try (Connection a = driver.connect(
                    router.mysqlPort(), ProxyCluster.SCHEMA, "app", "app-pw", Map.of("socketTimeout", "60000"))) {
                assertThat(value(a, "SELECT 1/0")).as("%s", driver).isNull(); // a warning: its connection stays
                int sprung = trap.sprung();
                trap.arm(QueryTrapProxy.COM_QUERY, "SHOW WARNINGS LIMIT 1");
                // no table, no warning: the router asks the held connection, and loses it right there
                assertThat(value(a, "SELECT 2")).as("%s", driver).isEqualTo("2");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (trap.sprung() == sprung && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(trap.sprung()).as("warning counts cut").isEqualTo(sprung + 1);
                // MariaDB would still show the 1/0 warning: it died with the connection, so no answer
                try (Statement s = a.createStatement()) {
                    assertThatThrownBy(() -> s.executeQuery("SHOW WARNINGS"))
                            .as("%s", driver)
                            .isInstanceOfSatisfying(
                                    SQLException.class,
                                    e -> assertThat(e.getErrorCode()).isEqualTo(1235));
                }
                // the session goes on, on a fresh connection
                assertThat(value(a, "SELECT 3")).as("%s", driver).isEqualTo("3");
                assertThat(value(a, "SELECT COUNT(*) FROM information_schema.COLLATIONS WHERE 1 = 0"))
                        .isEqualTo("0");
                assertThat(value(a, "SHOW COUNT(*) WARNINGS")).as("%s", driver).isEqualTo("0");
            }
        }
        assertThat(log.lines())
                .as("the loss was logged")
                .anyMatch(line -> line.contains("while the router asked for the warning count"));
    }

    /** The one value of {@code sql}'s one-row result, as text. */
    private static String value(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as("%s", sql).isTrue();
            return rs.getString(1);
        }
    }

    /** As {@code SetupStepBackendLossIT}: collects garbage until Netty has reported any leaked buffer. */
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
