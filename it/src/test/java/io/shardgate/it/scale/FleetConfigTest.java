package io.shardgate.it.scale;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.control.ClusterDocuments;
import java.util.List;
import org.junit.jupiter.api.Test;

class FleetConfigTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final FleetConfig fleet = new FleetConfig(5, 12, List.of("127.0.0.1:3306", "127.0.0.1:3307"), 4, 8);

    @Test
    void tablesGoRoundRobinOverHostgroupsAndHostgroupsOverServers() {
        assertThat(fleet.hostgroupOf(1)).isEqualTo(1);
        assertThat(fleet.hostgroupOf(5)).isEqualTo(5);
        assertThat(fleet.hostgroupOf(6)).isEqualTo(1);
        assertThat(fleet.serverOf(1)).isEqualTo("127.0.0.1:3306");
        assertThat(fleet.serverOf(2)).isEqualTo("127.0.0.1:3307");
        assertThat(fleet.serverOf(3)).isEqualTo("127.0.0.1:3306");
        assertThat(FleetConfig.table(42)).isEqualTo("t00042");
    }

    @Test
    void storedDocumentsHoldEveryHostgroupAndTableWithHostgroupTwoUnmultiplexed() throws Exception {
        ConfigDocuments documents = ClusterDocuments.of(
                RouterConfig.parse("server: {bind: 127.0.0.1, port: 0, http_port: 0}\n" + fleet.clusterYaml()));
        JsonNode hostgroups = JSON.readTree(documents.get(ConfigDocuments.HOSTGROUPS));
        JsonNode tables =
                JSON.readTree(documents.get(ConfigDocuments.SCHEMAS)).get(0).get("tables");
        assertThat(hostgroups).hasSize(5);
        assertThat(tables).hasSize(12);
        assertThat(tables.get(6).get("name").asText()).isEqualTo("t00007");
        assertThat(tables.get(6).get("hostgroup").asInt()).isEqualTo(2);
        assertThat(hostgroups.get(0).get("pool").get("max_connections").asInt()).isEqualTo(4);
        assertThat(hostgroups.get(1).get("pool").get("max_connections").asInt()).isEqualTo(8);
        assertThat(hostgroups.get(1).get("pool").get("multiplexing").asBoolean())
                .isFalse();
        assertThat(hostgroups.get(0).get("pool").get("multiplexing").asBoolean())
                .isTrue();
        assertThat(ConfigSize.of(documents)).isGreaterThan(12 * 40 + 5 * 100);
    }

    @Test
    void noTablesIsAnEmptyList() {
        FleetConfig empty = new FleetConfig(2, 0, List.of("127.0.0.1:3306"), 4, 0);
        assertThat(RouterConfig.parse("server: {bind: 127.0.0.1, port: 0, http_port: 0}\n" + empty.clusterYaml())
                        .schemas())
                .hasSize(1);
    }
}
