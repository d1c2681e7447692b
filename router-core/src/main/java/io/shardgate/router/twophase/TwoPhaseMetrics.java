package io.shardgate.router.twophase;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Meters of two-phase commit: transactions committed and rolled back by their router, branches the
 * resolver committed or rolled back, the in-doubt gauge (prepared branches the last resolver
 * pass found and could not resolve: alert when it stays above zero), and how long each step of a
 * two-phase COMMIT takes (where its latency goes).
 */
public final class TwoPhaseMetrics {
    private final Counter committed;
    private final Counter rolledBack;
    private final Counter recoveredCommit;
    private final Counter recoveredRollback;
    private final AtomicInteger inDoubt = new AtomicInteger();
    private final Timer prepare;
    private final Timer decision;
    private final Timer commit;

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
        prepare = step(registry, "prepare", "XA END and XA PREPARE on every branch but the manager's (in parallel)");
        decision = step(registry, "decision", "the decision row inserted and committed on the metadata manager");
        commit = step(registry, "commit", "XA COMMIT on every branch but the manager's (in parallel)");
        Gauge.builder("shardgate.twophase.in_doubt", inDoubt, AtomicInteger::get)
                .description("prepared Shardgate branches left unresolved by the last resolver pass")
                .register(registry);
    }

    private static Timer step(MeterRegistry registry, String step, String description) {
        return Timer.builder("shardgate.twophase.step")
                .tag("step", step)
                .description("time of one step of a two-phase COMMIT: " + description)
                .register(registry);
    }

    /** XA END and XA PREPARE on the branches took {@code nanos} (until the last answered). */
    public void prepared(long nanos) {
        prepare.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** The manager's INSERT of the decision row and its COMMIT took {@code nanos}. */
    public void decided(long nanos) {
        decision.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** XA COMMIT on every branch took {@code nanos} (until the last answered). */
    public void branchesCommitted(long nanos) {
        commit.record(nanos, TimeUnit.NANOSECONDS);
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
