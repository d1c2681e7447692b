package io.shardgate.move;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardgate.sharding.rule.HashStrategy;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BucketMoveTest {
    private static final String SCHEMAS = String.join(
            "\n",
            "- name: shop",
            "  default_hostgroup: 10",
            "  tables:",
            "    - {name: orders, strategy: hash, column: customer_id, buckets: 16, hostgroups: {10: \"0-7\", 20: \"8-15\"}}",
            "    - {name: Order_Items, strategy: hash, column: customer_id, buckets: 16, hostgroups: {10: \"0-7\", 20: \"8-15\"}}",
            "    - {name: notes, strategy: table, hostgroup: 10}",
            "  binding_groups: [[orders, order_items]]",
            "");

    @Test
    void movesTheBucketsOfTheTableAndItsBindingGroup() throws Exception {
        RuleChange planned = BucketMove.plan(SCHEMAS, "SHOP", "orders", 6, 11, 30);
        assertThat(planned.tables()).containsExactly("orders", "Order_Items");
        assertThat(planned.sources()).containsExactly(10, 20);
        JsonNode tables =
                new ObjectMapper().readTree(planned.schemasDocument()).get(0).get("tables");
        for (int i = 0; i < 2; i++) {
            assertThat(tables.get(i).get("hostgroups").toString())
                    .isEqualTo("{\"10\":\"0-5\",\"20\":\"12-15\",\"30\":\"6-11\"}");
        }
        assertThat(tables.get(2).get("hostgroup").asInt()).isEqualTo(10);
        List<JsonNode> schemas = new ArrayList<>();
        new ObjectMapper().readTree(planned.schemasDocument()).forEach(schemas::add);
        RuleSnapshot rules = RuleSnapshot.parse(2, List.of(10, 20, 30), schemas, List.of());
        HashStrategy orders =
                (HashStrategy) rules.schema("shop").resolve("orders").strategy();
        assertThat(orders.hostgroupOfBucket(6)).isEqualTo(30);
        assertThat(orders.hostgroupOfBucket(12)).isEqualTo(20);
    }

    @Test
    void whatIsNotABucketMoveIsRefusedWithTheReason() {
        assertThatThrownBy(() -> BucketMove.plan(SCHEMAS, "shop", "notes", 0, 1, 30))
                .hasMessageContaining("not sharded by hash");
        assertThatThrownBy(() -> BucketMove.plan(SCHEMAS, "shop", "orders", 10, 16, 30))
                .hasMessageContaining("not a range of the table's buckets 0-15");
        assertThatThrownBy(() -> BucketMove.plan(SCHEMAS, "shop", "orders", 8, 9, 20))
                .hasMessageContaining("already");
        assertThatThrownBy(() -> BucketMove.plan(SCHEMAS, "shop", "missing", 0, 1, 30))
                .hasMessageContaining("no table");
        assertThatThrownBy(() -> BucketMove.plan(SCHEMAS, "other", "orders", 0, 1, 30))
                .hasMessageContaining("no schema");
        String differing = SCHEMAS.replace(
                "Order_Items, strategy: hash, column: customer_id, buckets: 16, hostgroups:"
                        + " {10: \"0-7\", 20: \"8-15\"}",
                "Order_Items, strategy: hash, column: customer_id, buckets: 16,"
                        + " hostgroups: {10: \"0-8\", 20: \"9-15\"}");
        assertThat(differing).isNotEqualTo(SCHEMAS);
        assertThatThrownBy(() -> BucketMove.plan(differing, "shop", "orders", 0, 1, 30))
                .hasMessageContaining("bucket maps differ");
    }
}
