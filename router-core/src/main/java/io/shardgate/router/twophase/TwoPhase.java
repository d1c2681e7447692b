package io.shardgate.router.twophase;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the data plane needs for two-phase commit: fresh transaction ids, the decision log and the
 * meters. Thread-safe; one per router process.
 */
public final class TwoPhase {
    private final long node;
    private final TransactionLog log;
    private final TwoPhaseMetrics metrics;
    private final AtomicLong sequence = new AtomicLong();

    public TwoPhase(long node, TransactionLog log, TwoPhaseMetrics metrics) {
        this.node = node;
        this.log = log;
        this.metrics = metrics;
    }

    /** A new transaction id, or null while this router has no epoch (ZooKeeper not reached yet). */
    public Xid next() {
        long epoch = log.epoch();
        return epoch < 0 ? null : new Xid(node, epoch, sequence.incrementAndGet());
    }

    public TransactionLog log() {
        return log;
    }

    public TwoPhaseMetrics metrics() {
        return metrics;
    }
}
