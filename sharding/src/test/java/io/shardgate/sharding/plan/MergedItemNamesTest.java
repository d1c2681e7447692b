package io.shardgate.sharding.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.columns.ColumnCatalog;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.Rules;
import org.junit.jupiter.api.Test;

/**
 * A merged SELECT whose shard SQL is rendered from the normalized text ({@code - c.id}) names its
 * unaliased expression items as the client wrote them ({@code -c.id}), as MySQL does.
 */
class MergedItemNamesTest {
    private static final RuleSnapshot SHOP = Rules.resource("shop.yaml", 1);
    private final Planner planner = new Planner();

    private MergeSpec merge(String sql) {
        Digest digest = Digest.of(sql);
        Plan plan = planner.plan(digest, "shop", SHOP, ColumnCatalog.EMPTY);
        return plan.merge().resolve(Values.of(digest));
    }

    @Test
    void renderedExpressionsAreNamedAsWritten() {
        MergeSpec merge = merge("SELECT id, -customer_id, status+1 , UPPER( status ) FROM orders ORDER BY id LIMIT 3");

        assertThat(merge.itemName(0)).isNull(); // a column: the shards name it alike
        assertThat(merge.itemName(1)).isEqualTo("-customer_id");
        assertThat(merge.itemName(2)).isEqualTo("status+1");
        assertThat(merge.itemName(3)).isEqualTo("UPPER( status )");
    }

    @Test
    void aliasedItemsAndLiteralsKeepTheShardsNames() {
        MergeSpec merge = merge("SELECT -customer_id AS neg, 'x' FROM orders ORDER BY id LIMIT 3");

        assertThat(merge.itemName(0)).isNull();
        assertThat(merge.itemName(1)).isNull(); // MySQL names a string literal by its value, as the shards do
    }

    @Test
    void anUnaliasedExpressionNextToStarIsRefused() {
        Plan plan = planner.plan(
                Digest.of("SELECT *, -customer_id FROM orders ORDER BY id LIMIT 3"), "shop", SHOP, ColumnCatalog.EMPTY);

        assertThat(plan.route()).isInstanceOf(Route.Refuse.class);
        assertThat(((Route.Refuse) plan.route()).reason())
                .contains("customer_id")
                .contains("next to *");
    }
}
