package io.shardgate.move;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.SingleStrategy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableMoveTest {
    private static final String SCHEMAS = String.join(
            "\n",
            "- name: shop",
            "  default_hostgroup: 10",
            "  tables:",
            "    - {name: orders, strategy: hash, column: id, buckets: 16, hostgroups: {10: \"0-7\", 20: \"8-15\"}}",
            "    - {name: Notes, strategy: table, hostgroup: 20}",
            "");

    @Test
    void placesTheWholeTableOnTheTargetAndNothingElse() throws Exception {
        RuleChange planned = TableMove.plan(SCHEMAS, "SHOP", "notes", 30);
        assertThat(planned.tables()).containsExactly("Notes");
        assertThat(planned.sources()).containsExactly(20);
        List<JsonNode> schemas = new ArrayList<>();
        new ObjectMapper().readTree(planned.schemasDocument()).forEach(schemas::add);
        RuleSnapshot rules = RuleSnapshot.parse(2, List.of(10, 20, 30), schemas, List.of());
        assertThat(rules.schema("shop").resolve("notes").strategy()).isEqualTo(new SingleStrategy(30));
        assertThat(rules.schema("shop").resolve("orders").strategy().hostgroups())
                .containsExactlyInAnyOrder(10, 20);

        RuleChange back = TableMove.plan(planned.schemasDocument(), "shop", "notes", 20); // the reverse
        assertThat(back.sources()).containsExactly(30);
        assertThat(new ObjectMapper().readTree(back.schemasDocument()))
                .isEqualTo(new com.fasterxml.jackson.databind.ObjectMapper(
                                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                        .readTree(SCHEMAS));
    }

    @Test
    void refusesWhatIsNotAWholeTableMoveWithTheReason() {
        assertThatThrownBy(() -> TableMove.plan(SCHEMAS, "shop", "orders", 30))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("strategy hash")
                .hasMessageContaining("\"buckets\": \"lo-hi\"");
        assertThatThrownBy(() -> TableMove.plan(SCHEMAS, "shop", "notes", 20))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("on hostgroup 20 already");
        assertThatThrownBy(() -> TableMove.plan(SCHEMAS, "shop", "missing", 30))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no table missing");
        assertThatThrownBy(() -> BucketMove.plan(SCHEMAS, "shop", "notes", 0, 1, 30))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"buckets\": \"table\"");
    }
}
