package io.shardgate.router.columns;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.columns.TrackedColumn;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ColumnsSqlTest {

    @Test
    void asksForTheListedSchemasInTableAndColumnOrderWithNamesQuoted() {
        assertThat(ColumnsSql.select(Set.of("shop", "o'k")))
                .isEqualTo(
                        "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS"
                                + " WHERE TABLE_SCHEMA IN ('o''k', 'shop') ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION");
    }

    @Test
    void rowsBecomeColumnListsByLowerCaseTable() {
        Map<String, List<TrackedColumn>> tables = ColumnsSql.columnsByTable(List.of(
                Arrays.asList("Shop", "Orders", "id", null),
                Arrays.asList("Shop", "Orders", "customer_id", null),
                Arrays.asList("shop", "countries", "code", "utf8mb4_general_ci")));

        assertThat(tables)
                .containsExactly(
                        Map.entry("shop.orders", TrackedColumn.named("id", "customer_id")),
                        Map.entry("shop.countries", List.of(new TrackedColumn("code", "utf8mb4_general_ci"))));
    }
}
