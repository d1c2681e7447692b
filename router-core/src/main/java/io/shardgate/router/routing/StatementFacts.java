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

    /** The facts of {@code sql} (digest {@code digest}): its effects and INSERT-ness scanned from the text. */
    public static StatementFacts of(String sql, Digest digest, QueryRuleMatch rule, Plan plan) {
        return new StatementFacts(digest, rule, plan, StatementScanner.scan(sql), isInsert(sql));
    }

    static boolean isInsert(String sql) {
        int i = 0;
        while (i < sql.length() && (Character.isWhitespace(sql.charAt(i)) || sql.charAt(i) == '(')) {
            i++;
        }
        return sql.regionMatches(true, i, "INSERT", 0, 6) || sql.regionMatches(true, i, "REPLACE", 0, 7);
    }
}
