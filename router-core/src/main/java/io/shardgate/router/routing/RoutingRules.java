package io.shardgate.router.routing;

import io.shardgate.sharding.columns.ColumnCatalog;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.PlanCache;
import io.shardgate.sharding.plan.Planner;
import io.shardgate.sharding.rule.RuleSnapshot;

/**
 * The sharding rules in force and the plan cache over them. A session reads {@link #current()}
 * once per statement and plans against that snapshot, so a new version published meanwhile
 * (hot reload) applies from the next statement on, never halfway through one.
 */
public final class RoutingRules {
    /** Plans kept; a plan is a few hundred bytes, so this bounds the cache to a few MiB. */
    static final long MAX_PLANS = 10_000;

    private final PlanCache plans = new PlanCache(new Planner(), MAX_PLANS);
    private volatile RuleSnapshot current;
    private volatile ColumnCatalog columns = ColumnCatalog.EMPTY;

    public RoutingRules(RuleSnapshot initial) {
        this.current = initial;
    }

    /** The rule version new statements use. */
    public RuleSnapshot current() {
        return current;
    }

    /** Makes {@code next} the version new statements use. */
    public void publish(RuleSnapshot next) {
        current = next;
    }

    /** The column lists of the listed tables as schema tracking last learned them. */
    public ColumnCatalog columns() {
        return columns;
    }

    /** Makes {@code next} the column lists new plans read (plans that read older ones are planned again). */
    public void publishColumns(ColumnCatalog next) {
        columns = next;
    }

    /** The plan of {@code digest} for a session in {@code schema} under {@code rules}. */
    public Plan plan(Digest digest, String schema, RuleSnapshot rules) {
        return plans.get(digest, schema, rules, columns);
    }
}
