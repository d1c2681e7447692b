package io.shardgate.router.twophase;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Meters of two-phase commit: transactions committed and rolled back by their router, branches the
 * resolver committed or rolled back, and the in-doubt gauge (prepared branches the last resolver
 * pass found and could not resolve: alert when it stays above zero).
 */
public final class TwoPhaseMetrics {
    private final Counter committed;
    private final Counter rolledBack;
    private final Counter recoveredCommit;
    private final Counter recoveredRollback;
    private final AtomicInteger inDoubt = new AtomicInteger();

    public TwoPhaseMetrics(MeterRegistry registry) {
        committed = Counter.builder("shardgate.twophase.committed")
                .description("transactions on several shards committed with two-phase commit")
                .register(registry);
        rolledBack = Counter.builder("shardgate.twophase.rolled_back")
                .description("two-phase transactions rolled back (by the client or after a failed PREPARE)")
                .register(registry);
        recoveredCommit = Counter.builder("shardgate.twophase.recovered")
                .tag("outcome", "commit")
                .description("prepared branches the resolver finished")
                .register(registry);
        recoveredRollback = Counter.builder("shardgate.twophase.recovered")
                .tag("outcome", "rollback")
                .description("prepared branches the resolver finished")
                .register(registry);
        Gauge.builder("shardgate.twophase.in_doubt", inDoubt, AtomicInteger::get)
                .description("prepared Shardgate branches left unresolved by the last resolver pass")
                .register(registry);
    }

    public void committed() {
        committed.increment();
    }

    public void rolledBack() {
        rolledBack.increment();
    }

    public void recovered(Outcome outcome) {
        (outcome == Outcome.COMMIT ? recoveredCommit : recoveredRollback).increment();
    }

    public void inDoubt(int branches) {
        inDoubt.set(branches);
    }

    public int inDoubt() {
        return inDoubt.get();
    }
}
