package io.shardgate.cache;

import io.shardgate.sharding.rule.QueryRule;
import io.shardgate.sharding.rule.QueryRuleMatch;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.time.Duration;
import java.util.List;

/**
 * How one cacheable statement is cached, from the query rules that matched it: for how long, under
 * which rule (for stats and purge by rule) and whether the user is part of the key.
 *
 * @param rule index of the query rule that set {@code cache_ttl_ms} (the last matching one that did)
 * @param ttl how long a stored result may be served; positive
 * @param keyByUser whether the key includes the user: true when a query rule with a {@code user}
 *     condition matches this statement's schema and text, so the user may change its outcome
 */
public record CachePolicy(int rule, Duration ttl, boolean keyByUser) {
    public CachePolicy {
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive: " + ttl);
        }
    }

    /**
     * The policy of a statement whose query rules matched as {@code match}, or {@code null} when no
     * matching rule gives it a positive {@code cache_ttl_ms} (nothing is cached by default). Runs
     * the user-conditioned rules' regexes once more; the result depends only on the snapshot, the
     * schema and the digest text, so a caller may keep it with its plan.
     */
    public static CachePolicy of(RuleSnapshot snapshot, QueryRuleMatch match, String schema, CharSequence digestText) {
        Long ttl = match.cacheTtlMillis();
        if (ttl == null || ttl <= 0) {
            return null;
        }
        List<QueryRule> rules = snapshot.queryRules();
        int rule = -1;
        for (int index : match.rules()) {
            if (rules.get(index).cacheTtlMillis() != null) {
                rule = index; // later matching rules override earlier ones
            }
        }
        boolean byUser = false;
        for (QueryRule r : rules) {
            if (r.user() != null && r.matches(r.user(), schema, digestText)) {
                byUser = true;
                break;
            }
        }
        return new CachePolicy(rule, Duration.ofMillis(ttl), byUser);
    }
}
