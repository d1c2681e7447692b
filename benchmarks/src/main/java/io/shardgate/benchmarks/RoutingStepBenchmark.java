package io.shardgate.benchmarks;

import io.shardgate.router.session.StatementEffects;
import io.shardgate.router.session.StatementScanner;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.PlanCache;
import io.shardgate.sharding.plan.Planner;
import io.shardgate.sharding.plan.Targets;
import io.shardgate.sharding.plan.Values;
import io.shardgate.sharding.rule.QueryRuleMatch;
import io.shardgate.sharding.rule.RuleSnapshot;
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
 * sbtest1, in the order QueryRouter takes it: EXPLAIN SHARDGATE check, digest, query rules, the
 * statement scan (pins, USE), plan-cache hit, targets; the client's packet is then forwarded as it
 * is (no rewrite: the plan keeps the SQL), so nothing is re-encoded.
 *
 * <p>{@code route} is that path as it is now; {@code routeAsBefore} the same with what it did
 * before (an EXPLAIN regex {@code Matcher} on every statement and a {@link Values} built for
 * every statement, even for a route whose targets were fixed at planning); {@code baselineDigest}
 * the digest alone. Read allocation with {@code -prof gc}.
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
            Targets t = route(statements[i], null);
            if (t.targets().size() != 1 || t.targets().get(0).hostgroup() != 10) {
                throw new IllegalStateException(statements[i] + " must go to hostgroup 10, planned " + t);
            }
        }
    }

    @Benchmark
    public Targets route(Blackhole bh) {
        return route(statements[next++ & (IDS - 1)], bh);
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

    private Targets route(String sql, Blackhole bh) {
        if (startsWithExplain(sql) && EXPLAIN.matcher(sql).matches()) {
            throw new IllegalStateException();
        }
        Digest digest = Digest.of(sql);
        QueryRuleMatch rule = rules.matchQueryRules("app", SysbenchRules.SCHEMA, digest.text());
        StatementEffects effects = StatementScanner.scan(sql);
        if (bh != null) {
            bh.consume(rule);
            bh.consume(effects);
        }
        Plan plan = cache.get(digest, SysbenchRules.SCHEMA, rules);
        return plan.targets(digest, rules);
    }

    /** QueryRouter's gate (package-private there). */
    private static boolean startsWithExplain(String sql) {
        int i = 0;
        while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        return sql.regionMatches(true, i, "EXPLAIN", 0, 7);
    }
}
