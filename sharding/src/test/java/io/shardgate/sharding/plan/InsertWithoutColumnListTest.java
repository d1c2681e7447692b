package io.shardgate.sharding.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.sharding.columns.ColumnCatalog;
import io.shardgate.sharding.columns.TableColumns;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.Rules;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** INSERT / REPLACE without a column list into a sharded table: routed by the tracked column order. */
class InsertWithoutColumnListTest {
    private static final RuleSnapshot SHOP = Rules.resource("shop.yaml", 1);
    private static final ColumnCatalog TRACKED = new ColumnCatalog(
            5,
            Map.of(
                    "shop.orders", new TableColumns.Known(List.of("id", "customer_id", "status")),
                    "shop.members", new TableColumns.Known(List.of("id", "name")),
                    "shop.customers",
                            new TableColumns.Disagreeing("the shards of shop.customers differ: hostgroup 10 has (id),"
                                    + " hostgroup 20 has (id, name)")));

    private final Planner planner = new Planner();

    @Test
    void rowsAreSplitByTheKeyAtItsTrackedPosition() {
        Digest digest = Digest.of("INSERT INTO `orders` VALUES (1,42,'a'),(2,5,'b'),(3,1,'c')");
        Plan plan = planner.plan(digest, "shop", SHOP, TRACKED);

        assertThat(plan.route()).isInstanceOf(Route.SplitInsert.class);
        assertThat(plan.columnsVersion()).isEqualTo(5);
        Values values = Values.of(digest);
        Targets targets = plan.targets(values, SHOP);
        assertThat(targets.hostgroups()).containsExactly(10, 20);
        assertThat(plan.sql(targets, targets.targets().get(0), values).sql())
                .isEqualTo("INSERT INTO `orders` VALUES (1, 42, 'a'), (3, 1, 'c')");
        assertThat(plan.sql(targets, targets.targets().get(1), values).sql())
                .isEqualTo("INSERT INTO `orders` VALUES (2, 5, 'b')");
    }

    @Test
    void replaceAndQualifiedNamesUseTheTrackedOrderToo() {
        Digest digest = Digest.of("REPLACE INTO shop.orders VALUES (7, 5, 'x')");
        Plan plan = new Planner().plan(digest, null, SHOP, TRACKED);

        assertThat(plan.targets(Values.of(digest), SHOP).hostgroups()).containsExactly(20);
    }

    @Test
    void generatedKeyIsFilledInForNullAtTheKeyPosition() {
        Plan plan = planner.plan(Digest.of("INSERT INTO members VALUES (NULL, 'ada')"), "shop", SHOP, TRACKED);

        assertThat(plan.route()).isInstanceOf(Route.SplitInsert.class);
        assertThat(((Route.SplitInsert) plan.route()).keySlots()).containsExactly(Route.SplitInsert.GENERATED);
    }

    @Test
    void valueCountNotMatchingTheColumnsIsMySqlsError() {
        Plan plan = planner.plan(Digest.of("INSERT INTO orders VALUES (1, 42, 'a'), (2, 5)"), "shop", SHOP, TRACKED);

        assertThat(plan.route())
                .isEqualTo(new Route.Refuse(
                        ErrorCode.ER_WRONG_VALUE_COUNT_ON_ROW, "Column count doesn't match value count at row 2"));
    }

    @Test
    void tableWhoseShardsDisagreeIsRefusedNamingTheDisagreement() {
        Plan plan = planner.plan(Digest.of("INSERT INTO customers VALUES (1, 'x')"), "shop", SHOP, TRACKED);

        assertThat(plan.route())
                .isEqualTo(Route.Refuse.notSupported("INSERT without a column list into sharded table customers:"
                        + " the shards of shop.customers differ: hostgroup 10 has (id), hostgroup 20 has (id, name)"
                        + " (name the columns, or see schema tracking in docs/backup-restore.md)"));
    }

    @Test
    void insertWithAColumnListDoesNotDependOnTrackedColumns() {
        Plan plan = planner.plan(
                Digest.of("INSERT INTO orders (id, customer_id, status) VALUES (1, 42, 'a')"), "shop", SHOP, TRACKED);

        assertThat(plan.columnsVersion()).isEqualTo(Plan.NO_COLUMNS);
    }

    @Test
    void cachedPlanIsPlannedAgainWhenTheTrackedColumnsChange() {
        PlanCache cache = new PlanCache(new Planner(), 100);
        Digest digest = Digest.of("INSERT INTO orders VALUES (5, 42, 'a')");
        Plan untracked = cache.get(digest, "shop", SHOP, ColumnCatalog.EMPTY);
        assertThat(untracked.route()).isInstanceOf(Route.Refuse.class);
        assertThat(cache.get(digest, "shop", SHOP, ColumnCatalog.EMPTY)).isSameAs(untracked);

        Plan tracked = cache.get(digest, "shop", SHOP, TRACKED);
        assertThat(tracked.targets(Values.of(digest), SHOP).hostgroups()).containsExactly(10); // key 42
        assertThat(cache.get(digest, "shop", SHOP, TRACKED)).isSameAs(tracked);
        assertThat(cache.size()).isEqualTo(1);

        ColumnCatalog reordered = new ColumnCatalog(
                6, Map.of("shop.orders", new TableColumns.Known(List.of("customer_id", "id", "status"))));
        Plan replanned = cache.get(digest, "shop", SHOP, reordered);
        assertThat(replanned.targets(Values.of(digest), SHOP).hostgroups()).containsExactly(20); // key 5
    }
}
