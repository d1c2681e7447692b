package io.shardgate.sharding.columns;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.Rules;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ColumnAgreementTest {
    private static final RuleSnapshot SHOP = Rules.resource("shop.yaml", 1);
    private static final List<String> ORDER_NAMES = List.of("id", "customer_id", "status");
    private static final List<TrackedColumn> ORDERS = TrackedColumn.named("id", "customer_id", "status");

    @Test
    void tableIsKnownWhenEveryHostgroupOfItReportsTheSameColumns() {
        ColumnCatalog catalog = ColumnAgreement.catalog(
                3, SHOP, Map.of(10, Map.of("shop.orders", ORDERS), 20, Map.of("shop.orders", ORDERS), 30, Map.of()));

        assertThat(catalog.version()).isEqualTo(3);
        assertThat(catalog.lookup("shop", "orders")).isEqualTo(new TableColumns.Known(ORDER_NAMES));
        assertThat(catalog.lookup("SHOP", "Orders")).isEqualTo(new TableColumns.Known(ORDER_NAMES));
    }

    @Test
    void columnOrderThatDiffersBetweenShardsIsADisagreementNamingBoth() {
        ColumnCatalog catalog = ColumnAgreement.catalog(
                1,
                SHOP,
                Map.of(
                        10, Map.of("shop.orders", ORDERS),
                        20, Map.of("shop.orders", TrackedColumn.named("id", "status", "customer_id")),
                        30, Map.of()));

        assertThat(catalog.lookup("shop", "orders"))
                .isEqualTo(new TableColumns.Disagreeing("the shards of shop.orders differ: hostgroup 10 has"
                        + " (id, customer_id, status), hostgroup 20 has (id, status, customer_id)"));
    }

    @Test
    void tableMissingOnOneShardIsADisagreement() {
        ColumnCatalog catalog =
                ColumnAgreement.catalog(1, SHOP, Map.of(10, Map.of(), 20, Map.of("shop.orders", ORDERS), 30, Map.of()));

        assertThat(catalog.lookup("shop", "orders"))
                .isEqualTo(new TableColumns.Disagreeing(
                        "the shards of shop.orders differ: hostgroup 10 has no such table, hostgroup 20 has"
                                + " (id, customer_id, status)"));
    }

    @Test
    void hostgroupThatDidNotAnswerLeavesItsTablesUntracked() {
        ColumnCatalog catalog = ColumnAgreement.catalog(
                1,
                SHOP,
                Map.of(10, Map.of("shop.orders", ORDERS), 30, Map.of("shop.sbtest2", TrackedColumn.named("id", "k"))));

        assertThat(catalog.lookup("shop", "orders"))
                .isEqualTo(new TableColumns.Untracked("hostgroup 20 did not report the columns of shop.orders"));
        // a table of hostgroup 30 alone is still known
        assertThat(catalog.lookup("shop", "sbtest2")).isEqualTo(new TableColumns.Known(List.of("id", "k")));
    }

    @Test
    void tableOnNoShardAndUnlistedTablesAreUntracked() {
        ColumnCatalog catalog = ColumnAgreement.catalog(1, SHOP, Map.of(10, Map.of(), 20, Map.of(), 30, Map.of()));

        assertThat(catalog.lookup("shop", "orders"))
                .isEqualTo(new TableColumns.Untracked("table shop.orders does not exist on its shards"));
        assertThat(catalog.lookup("shop", "not_listed")).isInstanceOf(TableColumns.Untracked.class);
    }

    @Test
    void aKeyCollationThatDiffersBetweenShardsIsADisagreementNamingThem() {
        ColumnCatalog catalog = ColumnAgreement.catalog(
                1,
                SHOP,
                Map.of(
                        10, Map.of("shop.sessions", List.of(new TrackedColumn("token", "utf8mb4_bin"))),
                        20, Map.of("shop.sessions", List.of(new TrackedColumn("token", "utf8mb4_general_ci"))),
                        30, Map.of()));

        assertThat(catalog.lookup("shop", "sessions"))
                .isEqualTo(new TableColumns.Disagreeing("the shards of shop.sessions differ: hostgroup 10 has"
                        + " (token utf8mb4_bin), hostgroup 20 has (token utf8mb4_general_ci)"));
    }

    @Test
    void knownColumnsKeepTheirCollations() {
        ColumnCatalog catalog = ColumnAgreement.catalog(
                1,
                SHOP,
                Map.of(
                        10,
                                Map.of(
                                        "shop.sessions",
                                        List.of(
                                                new TrackedColumn("Token", "utf8mb4_bin"),
                                                new TrackedColumn("n", null))),
                        20,
                                Map.of(
                                        "shop.sessions",
                                        List.of(
                                                new TrackedColumn("Token", "utf8mb4_bin"),
                                                new TrackedColumn("n", null))),
                        30, Map.of()));

        TableColumns.Known known = (TableColumns.Known) catalog.lookup("shop", "sessions");
        assertThat(known.names()).containsExactly("Token", "n");
        assertThat(known.collationOf("token")).isEqualTo("utf8mb4_bin");
        assertThat(known.collationOf("n")).isNull();
    }
}
