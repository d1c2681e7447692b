package io.shardgate.sharding.plan;

import java.util.concurrent.atomic.LongAdder;

/** Per-plan counters, shared by every session executing the plan. */
public final class PlanStats {
    private final LongAdder executions = new LongAdder();
    private final LongAdder targets = new LongAdder();

    /** Records one execution that ran on {@code targetCount} hostgroups. */
    public void record(int targetCount) {
        executions.increment();
        targets.add(targetCount);
    }

    public long executions() {
        return executions.sum();
    }

    public long targets() {
        return targets.sum();
    }
}
