package io.shardgate.sharding.rule;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UnknownKeyTest {
    private static final Set<String> SERVER = Set.of("port", "admin_port", "http_port", "max_connections", "bind");

    @Test
    void namesThePathTheKeyAndTheSortedKnownKeys() {
        assertThat(UnknownKey.problem("server", "listen", SERVER))
                .isEqualTo("server.listen: unknown key (known: [admin_port, bind, http_port, max_connections, port])");
        assertThat(UnknownKey.problem("", "shards", Set.of("users", "schemas", "server")))
                .isEqualTo("shards: unknown key (known: [schemas, server, users])");
    }

    @Test
    void suggestsTheClosestKeyForATypo() {
        assertThat(UnknownKey.problem("server", "prot", SERVER))
                .startsWith("server.prot: unknown key (did you mean 'port'? known: [");
        assertThat(UnknownKey.suggestion("max_conections", SERVER)).isEqualTo("max_connections");
        assertThat(UnknownKey.suggestion("Port", SERVER)).isEqualTo("port");
        assertThat(UnknownKey.suggestion("htp_prot", SERVER)).isEqualTo("http_port");
        assertThat(UnknownKey.suggestion("wieght", List.of("weight", "address")))
                .isEqualTo("weight");
    }

    @Test
    void suggestsNothingFarFromEveryKey() {
        assertThat(UnknownKey.suggestion("listen", SERVER)).isNull();
        assertThat(UnknownKey.suggestion("shards", Set.of("users", "schemas", "server", "zookeeper")))
                .isNull();
        assertThat(UnknownKey.suggestion("x", Set.of())).isNull();
    }

    @Test
    void countsASwapOfNeighboursAsOneEdit() {
        assertThat(UnknownKey.distance("prot", "port")).isEqualTo(1);
        assertThat(UnknownKey.distance("kitten", "sitting")).isEqualTo(3);
        assertThat(UnknownKey.distance("", "abc")).isEqualTo(3);
    }
}
