package io.shardgate.sharding.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.Rules;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanCacheTest {
    private final RuleSnapshot v1 = Rules.resource("shop.yaml", 1);
    private final RuleSnapshot v2 = Rules.resource("shop.yaml", 2);

    @Test
    void statementsDifferingOnlyInLiteralsShareOnePlan() {
        PlanCache cache = new PlanCache(new Planner(), 100);
        Plan a = cache.get(Digest.of("SELECT status FROM orders WHERE customer_id = 42"), "shop", v1);
        Plan b = cache.get(Digest.of("select status from orders where customer_id=5"), "shop", v1);
        assertThat(b).isSameAs(a);
        assertThat(cache.size()).isEqualTo(1);
        Digest five = Digest.of("SELECT status FROM orders WHERE customer_id = 5");
        assertThat(a.targets(Values.of(five), v1).hostgroups()).containsExactly(20);
        Digest fortyTwo = Digest.of("SELECT status FROM orders WHERE customer_id = 42");
        assertThat(a.targets(Values.of(fortyTwo), v1).hostgroups()).containsExactly(10);
    }

    @Test
    void schemaIsPartOfTheKey() {
        PlanCache cache = new PlanCache(new Planner(), 100);
        Digest d = Digest.of("SELECT 1");
        Plan shop = cache.get(d, "shop", v1);
        Plan none = cache.get(d, null, v1);
        assertThat(none).isNotSameAs(shop);
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void newRuleVersionDropsOldPlans() {
        PlanCache cache = new PlanCache(new Planner(), 100);
        Digest d = Digest.of("SELECT status FROM orders WHERE customer_id = 42");
        Plan old = cache.get(d, "shop", v1);
        Plan fresh = cache.get(d, "shop", v2);
        assertThat(fresh).isNotSameAs(old);
        assertThat(fresh.key().ruleVersion()).isEqualTo(2);
        assertThat(cache.size()).isEqualTo(1);
        assertThatThrownBy(() -> old.targets(Values.of(d), v2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("rule version 1");
    }

    @Test
    void boundedByEntryCount() {
        PlanCache cache = new PlanCache(new Planner(), 10);
        for (int i = 0; i < 50; i++) {
            cache.get(Digest.of("SELECT c" + i + " FROM sbtest1 WHERE id = 1"), "shop", v1);
        }
        assertThat(cache.size()).isLessThanOrEqualTo(10);
    }

    @Test
    void preparedExecutionsBindTheirOwnValues() {
        Digest d = Digest.of("SELECT status FROM orders WHERE customer_id IN (?, ?)");
        Plan plan = new Planner().plan(d, "shop", v1);
        assertThat(plan.targets(Values.of(d, List.of(42L, 1L)), v1).hostgroups())
                .containsExactly(10);
        assertThat(plan.targets(Values.of(d, List.of(42L, 5L)), v1).hostgroups())
                .containsExactly(10, 20);
        assertThatThrownBy(() -> Values.of(d, List.of(1L))).isInstanceOf(IllegalArgumentException.class);
    }
}
