package io.shardgate.router.execute;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.key.KeyGenerator;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.Route;
import io.shardgate.sharding.plan.Target;
import io.shardgate.sharding.plan.Targets;
import io.shardgate.sharding.plan.Values;
import io.shardgate.sharding.rule.QueryRuleMatch;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The answer to {@code EXPLAIN SHARDGATE <statement>}: one row per step (digest, rule version,
 * query rules, plan as JSON, then each target with the SQL it would receive), so an operator sees
 * why a statement goes where it goes, or why it is refused.
 */
final class ExplainRows {
    private final Plan plan;
    private final QueryRuleMatch rule;
    private final Digest digest;
    private final RuleSnapshot rules;
    /** Keys for an INSERT that would generate them: drawn for the display, never used for a row. */
    private final KeyGenerator keys;

    ExplainRows(Plan plan, QueryRuleMatch rule, Digest digest, RuleSnapshot rules, KeyGenerator keys) {
        this.plan = plan;
        this.rule = rule;
        this.digest = digest;
        this.rules = rules;
        this.keys = keys;
    }

    /** Rows of (step, hostgroup or null, detail). */
    List<List<Object>> rows() {
        List<List<Object>> rows = new ArrayList<>();
        rows.add(row("digest", null, String.format("%016x %s", digest.hash(), digest.text())));
        rows.add(row("rules", null, "version " + rules.version()));
        if (rule.matched()) {
            rows.add(row(
                    "query_rules",
                    rule.destinationHostgroup(),
                    "matched " + rule.rules()
                            + (rule.error() != null ? ", error: " + rule.error() : "")
                            + (rule.cacheTtlMillis() != null ? ", cache_ttl_ms " + rule.cacheTtlMillis() : "")
                            + (Boolean.FALSE.equals(rule.multiplex()) ? ", multiplexing off" : "")));
        }
        rows.add(row("plan", null, plan.describe()));
        if (plan.route() instanceof Route.Refuse || plan.route() instanceof Route.Session) {
            return rows;
        }
        Values values = Values.of(digest);
        if (plan.route() instanceof Route.SplitInsert split) {
            values = split.withGeneratedKeys(values, keys);
        }
        Targets targets = plan.targets(values, rules);
        if (targets.error() != null) {
            rows.add(row("error", null, targets.error()));
            return rows;
        }
        for (Target target : targets.targets()) {
            rows.add(row(
                    targets.anyOne() ? "target (any one)" : "target",
                    target.hostgroup(),
                    plan.sql(targets, target, values).sql()));
        }
        return rows;
    }

    private static List<Object> row(String step, Integer hostgroup, String detail) {
        return Arrays.asList(step, hostgroup == null ? null : (Object) hostgroup.longValue(), detail);
    }
}
