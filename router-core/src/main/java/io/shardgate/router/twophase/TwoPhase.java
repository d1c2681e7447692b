package io.shardgate.router.twophase;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the data plane needs for two-phase commit: fresh transaction ids (this router's epoch), the
 * decision table's SQL and the meters. Thread-safe; one per router process.
 */
public final class TwoPhase {
    private final long node;
    private final RouterEpochs epochs;
    private final DecisionTable decisions;
    private final TwoPhaseMetrics metrics;
    private final AtomicLong sequence = new AtomicLong();

    public TwoPhase(long node, RouterEpochs epochs, DecisionTable decisions, TwoPhaseMetrics metrics) {
        this.node = node;
        this.epochs = epochs;
        this.decisions = decisions;
        this.metrics = metrics;
    }

    /**
     * A new transaction id, its manager not chosen yet, or null while this router has no epoch
     * (ZooKeeper not reached yet).
     */
    public Xid next() {
        long epoch = epochs.epoch();
        return epoch < 0 ? null : new Xid(node, epoch, sequence.incrementAndGet());
    }

    public RouterEpochs epochs() {
        return epochs;
    }

    public DecisionTable decisions() {
        return decisions;
    }

    public TwoPhaseMetrics metrics() {
        return metrics;
    }
}
