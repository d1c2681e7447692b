package io.shardgate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.routing.Decision;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The allocation guard of the hot path (issue 21): the whole routing step of a sysbench point
 * select on a plan-cache hit ({@link RoutingStepBenchmark#route}: digest, query rules, cache hit,
 * statement facts, decision) may allocate at most {@link #BUDGET_BYTES} per statement, counted by
 * the JVM's per-thread allocation counter. Bytes, not time: the count does not depend on the load
 * of the machine, and escape analysis can only lower it, so a statement that allocates more than
 * the budget is a regression of the code, not noise. Lower the budget when the path allocates less.
 */
class RoutingAllocationTest {
    /**
     * Measured 2026-11-28: 288 B with escape analysis and without it ({@code
     * -Dtest.argLine=-XX:-DoEscapeAnalysis}, the most any JIT state allocates); was 312 / 344 B before
     * the query rules were walked without an iterator, 760 B before the digest's normalizer and the
     * query rules' matchers were reused per thread. What is left: the normalized text, the literals,
     * the Digest, the statement facts and the decision.
     */
    private static final long BUDGET_BYTES = 296;

    private static final int WARMUP = 100_000;
    private static final int MEASURED = 20_000;

    @Test
    void aPointSelectOnAPlanCacheHitAllocatesWithinItsBudget() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        RoutingStepBenchmark b = new RoutingStepBenchmark();
        b.setUp();
        Decision last = null;
        for (int i = 0; i < WARMUP; i++) {
            last = b.routeNext();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < MEASURED; i++) {
            last = b.routeNext();
        }
        long perStatement = (threads.getCurrentThreadAllocatedBytes() - before) / MEASURED;

        assertThat(last).isInstanceOf(Decision.Single.class);
        assertThat(perStatement)
                .as("bytes allocated per routed point select (budget %d)", BUDGET_BYTES)
                .isLessThanOrEqualTo(BUDGET_BYTES);
        System.out.println("routing step: " + perStatement + " bytes allocated per point select");
    }
}
