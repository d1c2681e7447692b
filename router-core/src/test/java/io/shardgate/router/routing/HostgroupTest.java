package io.shardgate.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.socket.nio.NioSocketChannel;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.RouterConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Reader choice, status and role changes of a hostgroup; no server is contacted. */
class HostgroupTest {
    private final Hostgroup hostgroup = new Hostgroup(
            RouterConfig.parse("""
                            users:
                              - {name: app, password: secret}
                            hostgroups:
                              - id: 10
                                writer: "w:3306"
                                readers: ["r1:3306", {address: "r2:3306", weight: 3}, {address: "r0:3306", weight: 0}]
                                user: sg
                                max_replication_lag: 10
                                monitor: {shun_after_failures: 2}
                            """).hostgroups().get(0), new BackendConnector(NioSocketChannel.class, 1000));

    private final BackendServer writer = hostgroup.server("w:3306");
    private final BackendServer r1 = hostgroup.server("r1:3306");
    private final BackendServer r2 = hostgroup.server("r2:3306");

    @AfterEach
    void close() {
        hostgroup.close();
    }

    private Map<String, Integer> picks(int n) {
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < n; i++) {
            BackendServer s = hostgroup.pickReader(null);
            seen.merge(s == null ? "none" : s.address().toString(), 1, Integer::sum);
        }
        return seen;
    }

    @Test
    void readersArePickedByWeightAndWeightZeroNever() {
        Map<String, Integer> seen = picks(4000);
        assertThat(seen).containsOnlyKeys("r1:3306", "r2:3306");
        // weight 3 against 1: r2 gets about three quarters (bounds far outside random spread)
        assertThat(seen.get("r2:3306")).isBetween(2600, 3400);
    }

    @Test
    void onlyOnlineReadersWithinTheLagBoundAreUsed() {
        r2.status(ServerStatus.OFFLINE_SOFT, "test");
        assertThat(picks(100)).containsOnlyKeys("r1:3306");
        r1.checkPassed(true, 11L);
        assertThat(picks(10)).containsOnlyKeys("none");
        r1.checkPassed(true, BackendServer.REPLICATION_STOPPED);
        assertThat(picks(10)).containsOnlyKeys("none");
        r1.checkPassed(true, 10L);
        assertThat(picks(10)).containsOnlyKeys("r1:3306");
        assertThat(hostgroup.pickReader(r1)).as("avoiding the one that failed").isNull();
    }

    @Test
    void failuresShunAndAPassingCheckRestores() {
        r1.checkFailed("refused");
        assertThat(r1.status()).isEqualTo(ServerStatus.ONLINE);
        r1.connectFailed("refused");
        assertThat(r1.status()).isEqualTo(ServerStatus.SHUNNED);
        assertThat(r1.info().lastError()).isEqualTo("refused");
        assertThat(r1.pool().refusal()).contains("SHUNNED");
        r1.checkPassed(true, 0L);
        assertThat(r1.status()).isEqualTo(ServerStatus.ONLINE);
        assertThat(r1.pool().refusal()).isNull();
    }

    @Test
    void theMonitorNeverTakesAServerOutOfAnOfflineStatus() {
        r1.status(ServerStatus.OFFLINE_SOFT, "admin");
        r1.checkPassed(true, 0L);
        assertThat(r1.status()).isEqualTo(ServerStatus.OFFLINE_SOFT);
        r1.checkFailed("x");
        r1.checkFailed("x");
        assertThat(r1.status()).isEqualTo(ServerStatus.OFFLINE_SOFT);
    }

    @Test
    void aReadOnlyWriterAndAWritableReaderSwapRoles() {
        writer.checkPassed(false, null);
        r1.checkPassed(true, 0L);
        hostgroup.followTopology();
        assertThat(hostgroup.writer()).isSameAs(writer);

        writer.checkPassed(true, null);
        r2.checkPassed(false, null);
        hostgroup.followTopology();
        assertThat(hostgroup.writer()).isSameAs(r2);
        assertThat(r2.role()).isEqualTo(ServerRole.WRITER);
        assertThat(writer.role()).isEqualTo(ServerRole.READER);
        assertThat(hostgroup.pickReader(r1))
                .as("the old writer now serves reads")
                .isSameAs(writer);
    }
}
