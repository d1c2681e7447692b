package io.shardgate.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.socket.nio.NioSocketChannel;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.RouterConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A new configuration version's hostgroups: which open, which are replaced or retired, who is told. */
class HostgroupsTest {
    private static List<HostgroupConfig> hostgroups(String yaml) {
        return RouterConfig.parse("users: [{name: app, password: secret}]\nhostgroups:\n" + yaml)
                .hostgroups();
    }

    @Test
    void applyOpensNewHostgroupsReplacesChangedOnesAndRetiresMissingOnes() throws Exception {
        List<HostgroupConfig> first = hostgroups(
                "  - {id: 10, writer: \"a:3306\", user: sg}\n" + "  - {id: 30, writer: \"c:3306\", user: sg}\n");
        List<HostgroupConfig> second = hostgroups(
                "  - {id: 10, writer: \"changed:3306\", user: sg}\n" + "  - {id: 20, writer: \"b:3306\", user: sg}\n");
        try (Hostgroups running = new Hostgroups(first, new BackendConnector(NioSocketChannel.class, 1000))) {
            List<Integer> told = new ArrayList<>();
            List<Hostgroup> retired = new ArrayList<>();
            running.onAdded(hostgroup -> {
                told.add(hostgroup.config().id());
                assertThat(running.get(hostgroup.config().id()))
                        .as("visible when told")
                        .isSameAs(hostgroup);
            });
            running.onRetired(retired::add);
            Hostgroup old10 = running.get(10);
            Hostgroup kept30 = running.get(30);

            assertThat(running.apply(second)).as("changed and removed").containsExactly(10, 30);

            assertThat(told).containsExactly(10, 20);
            assertThat(running.get(20).config().writer()).isEqualTo("b:3306");
            assertThat(running.get(10).config().writer()).isEqualTo("changed:3306");
            assertThat(running.get(10).retired()).isFalse();
            assertThat(running.get(30)).isNull();
            assertThat(retired).containsExactly(old10, kept30);
            assertThat(old10.retired()).isTrue();
            assertThat(kept30.retired()).isTrue();

            // nothing borrowed from the retired pools: they close at the first drain check
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!running.draining().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(running.draining()).isEmpty();
            assertThat(old10.busy()).isFalse();

            Hostgroup new10 = running.get(10);
            assertThat(running.apply(second))
                    .as("the same version again changes nothing")
                    .isEmpty();
            assertThat(running.get(10)).isSameAs(new10);
            assertThat(told).as("an open hostgroup is not announced twice").containsExactly(10, 20);
        }
    }
}
