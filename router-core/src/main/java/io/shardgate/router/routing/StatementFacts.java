package io.shardgate.router.routing;

import io.shardgate.router.session.StatementEffects;
import io.shardgate.router.session.StatementScanner;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.rule.QueryRuleMatch;

/**
 * What the router knows of one client text statement before it routes it: its digest, the query
 * rules it matched, its plan, what it does to the session, and whether it inserts rows. Routing
 * reads these, never the statement text again.
 *
 * @param plan the cached plan, or null when a query rule decides without one (see {@link
 *     StatementRouter#plans})
 * @param insert an INSERT or REPLACE: never on a reader, and the insert id it reports is tracked
 */
public record StatementFacts(Digest digest, QueryRuleMatch rule, Plan plan, StatementEffects effects, boolean insert) {

    /** The facts of the statement {@code digest} was made of: all of them read off the digest. */
    public static StatementFacts of(Digest digest, QueryRuleMatch rule, Plan plan) {
        return new StatementFacts(
                digest,
                rule,
                plan,
                StatementScanner.scan(digest),
                digest.startsWith("INSERT") || digest.startsWith("REPLACE"));
    }
}
