package io.shardgate.benchmarks;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.PlanCache;
import io.shardgate.sharding.plan.Planner;
import io.shardgate.sharding.plan.Targets;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A statement whose plan is cached, the path every repeated statement takes: {@link Digest#of},
 * {@link PlanCache#get} and {@link Plan#targets(Digest, RuleSnapshot)}. Ids cycle through 1024 values, so every call has
 * new literals and the same digest, as under sysbench. {@code table}: sbtest1 point select (the
 * whole table on one hostgroup); {@code hash}: a point select on orders by its hash key.
 *
 * <p>{@code hit} is the whole per-statement cost; {@code lookupAndTargets} starts from a digest made
 * in setup, so it is the plan cache's share alone (issue target: well under 1 us and no
 * allocation beyond the literal values; read gc.alloc.rate.norm with {@code -prof gc});
 * {@code baselineDigest} is the digest alone, the same work {@code hit} does before the lookup.
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar PlanCacheHitBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PlanCacheHitBenchmark {
    private static final int IDS = 1024;

    @Param({"table", "hash"})
    public String layout;

    private RuleSnapshot rules;
    private PlanCache cache;
    private final String[] statements = new String[IDS];
    private final Digest[] digests = new Digest[IDS];
    private int next;

    @Setup
    public void setUp() {
        rules = SysbenchRules.load(1);
        cache = new PlanCache(new Planner(), 10_000);
        IntFunction<String> sql = switch (layout) {
            case "table" -> id -> Statements.pointSelect(id);
            case "hash" -> id -> Statements.orderById(id);
            default -> throw new IllegalArgumentException("unknown layout " + layout);
        };
        for (int i = 0; i < IDS; i++) {
            statements[i] = sql.apply(1 + 7919 * i);
            digests[i] = Digest.of(statements[i]);
        }
        // the expected routes, so a planner change that breaks them cannot pass as a faster benchmark
        Set<Integer> used = new TreeSet<>();
        for (int i = 0; i < IDS; i++) {
            Targets t = targetsOf(Digest.of(statements[i]));
            if (t.error() != null || t.targets().size() != 1) {
                throw new IllegalStateException(statements[i] + " must go to one hostgroup, planned " + t);
            }
            used.addAll(t.hostgroups());
        }
        Set<Integer> expected = layout.equals("table") ? Set.of(10) : Set.of(10, 20);
        if (!used.equals(expected)) {
            throw new IllegalStateException(
                    layout + " statements must reach hostgroups " + expected + ", reached " + used);
        }
        if (cache.size() != 1) {
            throw new IllegalStateException("one digest must make one plan, cached " + cache.size());
        }
    }

    @Benchmark
    public Targets hit() {
        return targetsOf(Digest.of(statements[next++ & (IDS - 1)]));
    }

    @Benchmark
    public Targets lookupAndTargets() {
        return targetsOf(digests[next++ & (IDS - 1)]);
    }

    @Benchmark
    public Digest baselineDigest() {
        return Digest.of(statements[next++ & (IDS - 1)]);
    }

    private Targets targetsOf(Digest digest) {
        Plan plan = cache.get(digest, SysbenchRules.SCHEMA, rules);
        return plan.targets(digest, rules); // as QueryRouter: Values only for routes that read them
    }
}
