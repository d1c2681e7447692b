package io.shardgate.benchmarks;

import io.shardgate.router.routing.Decision;
import io.shardgate.router.routing.SessionView;
import io.shardgate.router.routing.StatementFacts;
import io.shardgate.router.routing.StatementRouter;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.PreviousStatement;
import io.shardgate.router.session.StatementEffects;
import io.shardgate.router.session.StatementScanner;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.key.KeyGenerator;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.PlanCache;
import io.shardgate.sharding.plan.Planner;
import io.shardgate.sharding.plan.Targets;
import io.shardgate.sharding.plan.Values;
import io.shardgate.sharding.rule.QueryRuleMatch;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The router's whole per-statement routing decision for a sysbench point select on a table-sharded
 * sbtest1, through the code QueryRouter runs: the digest (the one pass over the client's text),
 * {@link StatementRouter#answeredLocally} (gated on the digest's first word and marks), query rules,
 * plan-cache hit, the statement's facts (read off the digest) and {@link StatementRouter#decide};
 * the client's packet is then forwarded as it is (no rewrite: the plan keeps the SQL), so nothing is
 * re-encoded.
 *
 * <p>{@code route} is that path; {@code routeAsBefore} a frozen copy of what QueryRouter did before
 * the EXPLAIN gate and the fixed-target shortcut (an EXPLAIN regex {@code Matcher} on every
 * statement and a {@link Values} built for every statement, even for a route whose targets were
 * fixed at planning) and a second pass over the text for the session effects (a second digest
 * now stands in for the statement scanner the digest's marks replaced), kept as the baseline it
 * was measured against; {@code baselineDigest} the
 * digest alone. Read allocation with {@code -prof gc}.
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar RoutingStepBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RoutingStepBenchmark {
    private static final int IDS = 1024;
    /** The pattern QueryRouter matched every statement against before it gated it on the first word. */
    private static final Pattern EXPLAIN =
            Pattern.compile("^\\s*EXPLAIN\\s+SHARDGATE\\s+(.+)$", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    /** A client session in sbtest holding no connection, outside any transaction. */
    private static final SessionView IDLE = new IdleSession(SysbenchRules.SCHEMA);
    /** Point selects never draw generated keys. */
    private static final KeyGenerator NO_KEYS = count -> {
        throw new IllegalStateException("a point select drew " + count + " generated keys");
    };

    private RuleSnapshot rules;
    private PlanCache cache;
    private final String[] statements = new String[IDS];
    private int next;

    @Setup
    public void setUp() {
        rules = SysbenchRules.load(1);
        cache = new PlanCache(new Planner(), 10_000);
        for (int i = 0; i < IDS; i++) {
            statements[i] = Statements.pointSelect(1 + 7919 * i);
            Decision d = route(statements[i], null);
            if (!(d instanceof Decision.Single single) || single.hostgroup() != 10 || single.rewritten() != null) {
                throw new IllegalStateException(statements[i] + " must go to hostgroup 10 as it is, decided " + d);
            }
        }
    }

    @Benchmark
    public Decision route(Blackhole bh) {
        return route(statements[next++ & (IDS - 1)], bh);
    }

    /** {@link #route(Blackhole)} without JMH: the allocation guard (RoutingAllocationTest) runs it. */
    Decision routeNext() {
        return route(statements[next++ & (IDS - 1)], null);
    }

    @Benchmark
    public Targets routeAsBefore(Blackhole bh) {
        String sql = statements[next++ & (IDS - 1)];
        if (EXPLAIN.matcher(sql).matches()) {
            throw new IllegalStateException();
        }
        Digest digest = Digest.of(sql);
        QueryRuleMatch rule = rules.matchQueryRules("app", SysbenchRules.SCHEMA, digest.text());
        StatementEffects effects = StatementScanner.scan(sql);
        bh.consume(rule);
        bh.consume(effects);
        Plan plan = cache.get(digest, SysbenchRules.SCHEMA, rules);
        return plan.targets(Values.of(digest), rules);
    }

    @Benchmark
    public Digest baselineDigest() {
        return Digest.of(statements[next++ & (IDS - 1)]);
    }

    /** QueryRouter.route up to the decision (the result cache is off, as in the sysbench runs). */
    private Decision route(String sql, Blackhole bh) {
        Digest digest = Digest.of(sql);
        if (StatementRouter.answeredLocally(digest, sql, IDLE) != null) {
            throw new IllegalStateException(sql + " is answered by the router");
        }
        QueryRuleMatch rule = rules.matchQueryRules("app", SysbenchRules.SCHEMA, digest.text());
        Plan plan = StatementRouter.plans(rule) ? cache.get(digest, SysbenchRules.SCHEMA, rules) : null;
        StatementFacts facts = StatementFacts.of(digest, rule, plan);
        if (bh != null) {
            bh.consume(facts); // the executor reads the effects and INSERT-ness when it runs the statement
        }
        return StatementRouter.decide(facts, rules, IDLE, NO_KEYS);
    }

    /** A session that holds nothing: what a multiplexed sysbench client looks like between statements. */
    private record IdleSession(String schema) implements SessionView {
        @Override
        public boolean holdsConnection(int hostgroup) {
            return false;
        }

        @Override
        public boolean transactionOnlyDeclared() {
            return false;
        }

        @Override
        public List<Integer> transactionHostgroups() {
            return List.of();
        }

        @Override
        public Set<PinReason> pins() {
            return Set.of();
        }

        @Override
        public long lastInsertId() {
            return 0;
        }

        @Override
        public Map<String, String> variables() {
            return Map.of();
        }

        @Override
        public long previousRowCount() {
            return PreviousStatement.UNKNOWN;
        }

        @Override
        public long previousFoundRows() {
            return PreviousStatement.UNKNOWN;
        }
    }
}
