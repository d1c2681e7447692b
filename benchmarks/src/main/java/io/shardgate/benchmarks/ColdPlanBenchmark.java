package io.shardgate.benchmarks;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.Planner;
import io.shardgate.sharding.plan.Route;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@link Planner#plan} on a plan-cache miss: Calcite's Babel parser, table resolution, routing and
 * merge planning, for sysbench's point select, a join inside the orders/order_items binding group,
 * and a scattered aggregate with GROUP BY, ORDER BY and LIMIT. The baseline is {@link Digest#of}
 * of the same statement, which precedes every plan.
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar ColdPlanBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ColdPlanBenchmark {
    @Param({"point-select", "binding-join", "group-order-limit"})
    public String statement;

    private final Planner planner = new Planner();
    private RuleSnapshot rules;
    private String sql;
    private Digest digest;

    @Setup
    public void setUp() {
        rules = SysbenchRules.load(1);
        sql = switch (statement) {
            case "point-select" -> Statements.POINT_SELECT;
            case "binding-join" ->
                "SELECT o.id, o.total, i.sku, i.quantity FROM orders o JOIN order_items i"
                        + " ON o.customer_id = i.customer_id AND o.id = i.order_id WHERE o.customer_id = 42";
            case "group-order-limit" ->
                "SELECT status, COUNT(*), SUM(total), MAX(created_at) FROM orders"
                        + " WHERE created_at >= '2026-01-01' GROUP BY status ORDER BY status LIMIT 10";
            default -> throw new IllegalArgumentException("unknown statement " + statement);
        };
        digest = Digest.of(sql);
        Class<? extends Route> expected = switch (statement) {
            case "point-select" -> Route.OneHostgroup.class;
            case "binding-join" -> Route.ByKey.class;
            default -> Route.Scatter.class;
        };
        Route route = plan().route();
        if (!expected.isInstance(route)) {
            throw new IllegalStateException(sql + " must plan as " + expected.getSimpleName() + ", planned " + route);
        }
    }

    @Benchmark
    public Plan plan() {
        return planner.plan(digest, SysbenchRules.SCHEMA, rules);
    }

    @Benchmark
    public Digest baselineDigest() {
        return Digest.of(sql);
    }
}
