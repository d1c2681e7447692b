package io.shardgate.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.socket.nio.NioSocketChannel;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.RouterConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A new configuration version's hostgroups: which open, which wait for a restart, who is told. */
class HostgroupsTest {
    private static List<HostgroupConfig> hostgroups(String yaml) {
        return RouterConfig.parse("users: [{name: app, password: secret}]\nhostgroups:\n" + yaml)
                .hostgroups();
    }

    @Test
    void applyOpensNewHostgroupsTellsListenersAndLeavesChangedOnesForTheNextStart() {
        List<HostgroupConfig> first = hostgroups("  - {id: 10, writer: \"a:3306\", user: sg}\n");
        List<HostgroupConfig> second = hostgroups(
                "  - {id: 10, writer: \"changed:3306\", user: sg}\n" + "  - {id: 20, writer: \"b:3306\", user: sg}\n");
        try (Hostgroups running = new Hostgroups(first, new BackendConnector(NioSocketChannel.class, 1000))) {
            List<Integer> told = new ArrayList<>();
            running.onAdded(hostgroup -> {
                told.add(hostgroup.config().id());
                assertThat(running.get(hostgroup.config().id()))
                        .as("visible when told")
                        .isSameAs(hostgroup);
            });

            assertThat(running.apply(second))
                    .as("changed, applied at the next start")
                    .containsExactly(10);

            assertThat(told).containsExactly(20);
            assertThat(running.get(20).config().writer()).isEqualTo("b:3306");
            assertThat(running.get(10).config().writer()).isEqualTo("a:3306");
            assertThat(running.apply(second)).containsExactly(10);
            assertThat(told).as("an open hostgroup is not announced twice").containsExactly(20);
        }
    }
}
