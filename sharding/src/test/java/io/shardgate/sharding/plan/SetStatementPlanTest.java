package io.shardgate.sharding.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.columns.ColumnCatalog;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.Rules;
import org.junit.jupiter.api.Test;

/** {@code SET STATEMENT ... FOR <statement>}: planned by the inner statement, sent with its prefix. */
class SetStatementPlanTest {
    private static final RuleSnapshot SHOP = Rules.resource("shop.yaml", 1);
    private final Planner planner = new Planner();

    private Plan plan(Digest digest) {
        return planner.plan(digest, "shop", SHOP, ColumnCatalog.EMPTY);
    }

    @Test
    void aTimeoutRunsOnEveryShardWithTheMergedStatement() {
        Digest digest = Digest.of("SET STATEMENT max_statement_time=2 FOR SELECT COUNT(*) FROM orders");
        Plan plan = plan(digest);

        assertThat(plan.route()).isInstanceOf(Route.Scatter.class);
        Values values = Values.of(digest);
        Targets targets = plan.targets(values, SHOP);
        assertThat(targets.hostgroups()).containsExactly(10, 20);
        assertThat(plan.sql(targets, targets.targets().get(0), values).sql())
                .isEqualTo("SET STATEMENT max_statement_time=2 FOR SELECT COUNT(*) FROM orders");
    }

    @Test
    void aPointStatementRoutesByItsKey() {
        Digest digest = Digest.of("SET STATEMENT sql_select_limit=1 FOR SELECT * FROM orders WHERE customer_id = 5");
        Plan plan = plan(digest);

        assertThat(plan.targets(Values.of(digest), SHOP).hostgroups()).hasSize(1);
    }

    @Test
    void otherVariablesOnSeveralShardsAreRefused() {
        Plan plan = plan(Digest.of("SET STATEMENT sql_select_limit=1 FOR SELECT * FROM orders"));

        assertThat(plan.route()).isInstanceOf(Route.Refuse.class);
        assertThat(((Route.Refuse) plan.route()).reason()).startsWith("SET STATEMENT sql_select_limit FOR a statement");

        Digest list =
                Digest.of("SET STATEMENT sql_select_limit=1 FOR SELECT * FROM orders WHERE customer_id IN (1, 2, 3)");
        assertThat(plan(list).targets(Values.of(list), SHOP).error()).startsWith("SET STATEMENT sql_select_limit");
    }
}
