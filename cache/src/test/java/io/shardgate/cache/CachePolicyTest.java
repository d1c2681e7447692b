package io.shardgate.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.sharding.rule.QueryRule;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CachePolicyTest {
    static final RuleSnapshot RULES = new RuleSnapshot(
            1,
            Map.of(),
            new TreeSet<>(),
            List.of(
                    rule(0, "^SELECT c FROM sbtest", null, null, 5_000L, false),
                    rule(1, "FROM sbtest1 ", null, null, 2_000L, false),
                    rule(2, "FROM reports", "analyst", null, 60_000L, true),
                    rule(3, "FROM reports", null, null, 1_000L, false),
                    rule(4, "FROM nocache_me", null, null, 0L, false),
                    rule(5, "FROM sbtest", "batch", "other", 9_000L, false)));

    @Test
    void theLastMatchingRuleWithATtlDecides() {
        assertThat(policy("analyst", "shop", "SELECT c FROM sbtest1 WHERE id = ?"))
                .isEqualTo(new CachePolicy(1, Duration.ofSeconds(2), false));
        assertThat(policy("app", "shop", "SELECT c FROM sbtest2 WHERE id = ?"))
                .isEqualTo(new CachePolicy(0, Duration.ofSeconds(5), false));
    }

    @Test
    void nothingIsCachedWithoutAPositiveTtl() {
        assertThat(policy("app", "shop", "SELECT * FROM orders")).isNull();
        assertThat(policy("app", "shop", "SELECT * FROM nocache_me")).isNull();
    }

    @Test
    void theKeyHoldsTheUserWhenAUserConditionedRuleMatchesTheStatement() {
        // analyst gets 60 s and everyone else 1 s: one cached answer must not serve both
        assertThat(policy("analyst", "shop", "SELECT * FROM reports"))
                .isEqualTo(new CachePolicy(2, Duration.ofMinutes(1), true));
        assertThat(policy("bob", "shop", "SELECT * FROM reports"))
                .isEqualTo(new CachePolicy(3, Duration.ofSeconds(1), true));
        // rule 5 names a user but only for schema "other"
        assertThat(policy("bob", "shop", "SELECT c FROM sbtest2 WHERE id = ?").keyByUser())
                .isFalse();
        assertThat(policy("bob", "other", "SELECT c FROM sbtest2 WHERE id = ?").keyByUser())
                .isTrue();
    }

    @Test
    void aTtlMustBePositive() {
        assertThatThrownBy(() -> new CachePolicy(0, Duration.ZERO, false)).isInstanceOf(IllegalArgumentException.class);
    }

    private static CachePolicy policy(String user, String schema, String text) {
        return CachePolicy.of(RULES, RULES.matchQueryRules(user, schema, text), schema, text);
    }

    private static QueryRule rule(int index, String regex, String user, String schema, Long ttl, boolean apply) {
        return new QueryRule(
                index,
                null,
                Pattern.compile(regex, Pattern.CASE_INSENSITIVE),
                user,
                schema,
                null,
                null,
                ttl,
                null,
                null,
                apply);
    }
}
