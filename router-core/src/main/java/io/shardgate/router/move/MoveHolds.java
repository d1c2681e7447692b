package io.shardgate.router.move;

import io.netty.channel.EventLoop;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;

/**
 * This router's view of the moves under way ({@link MovingTables}, fed by {@link MoveWatch}) and the
 * statements waiting for a cutover. A waiting statement is tried again on its session's event loop
 * whenever the moves change (it may run then, or wait again), and fails when its deadline passes.
 * Thread-safe; the statement path reads {@link #tables()} (one volatile read) and nothing else while
 * no move is under way.
 */
public final class MoveHolds {
    /**
     * How long a statement waits for a cutover before it fails with 1205: well above a cutover's
     * hold (its target is 500 ms at the 99th percentile), well below a client's read timeout.
     */
    public static final long HOLD_TIMEOUT_MILLIS = 10_000;

    private final long holdTimeoutMillis;
    private final Set<Waiting> waiting = ConcurrentHashMap.newKeySet();
    private volatile MovingTables tables = MovingTables.NONE;
    private volatile LongConsumer waits = nanos -> {};

    /** @param holdTimeoutMillis how long a statement waits for a cutover before it fails */
    public MoveHolds(long holdTimeoutMillis) {
        this.holdTimeoutMillis = holdTimeoutMillis;
    }

    public MovingTables tables() {
        return tables;
    }

    /** The moves changed: every waiting statement is tried again. */
    public void update(MovingTables next) {
        tables = next;
        for (Waiting w : waiting) {
            w.retry();
        }
    }

    /** Where each statement's whole wait for moves goes, in nanoseconds (a timer: {@link MoveMetrics}). */
    public void reportWaitsTo(LongConsumer sink) {
        waits = sink;
    }

    /**
     * A statement that started waiting with deadline {@code deadlineNanos} ({@link #deadlineFromNow})
     * stops waiting now: it runs, or fails.
     */
    public void waited(long deadlineNanos) {
        waits.accept(System.nanoTime() - (deadlineNanos - TimeUnit.MILLISECONDS.toNanos(holdTimeoutMillis)));
    }

    /** Statements waiting now. */
    public int waitingCount() {
        return waiting.size();
    }

    /** The deadline of a statement that starts waiting now, for {@link #park}. */
    public long deadlineFromNow() {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdTimeoutMillis);
    }

    /**
     * Parks a statement that was told to wait under {@code decidedUnder} until the moves change
     * ({@code retry} runs on {@code loop}) or {@code deadlineNanos} passes ({@code timedOut} runs on
     * {@code loop}); exactly one of them runs, unless the returned handle is cancelled first (the
     * session closed).
     */
    public Waiting park(
            EventLoop loop, MovingTables decidedUnder, long deadlineNanos, Runnable retry, Runnable timedOut) {
        Waiting w = new Waiting(loop, decidedUnder, retry, timedOut);
        waiting.add(w);
        long left = Math.max(0, deadlineNanos - System.nanoTime());
        w.timer = loop.schedule(w::expire, left, TimeUnit.NANOSECONDS);
        if (tables != w.parkedUnder) {
            w.retry(); // the moves changed while it was being parked
        }
        return w;
    }

    /** A parked statement. */
    public final class Waiting {
        private final EventLoop loop;
        private final Runnable retry;
        private final Runnable timedOut;
        private final AtomicBoolean done = new AtomicBoolean();
        private final MovingTables parkedUnder;
        private volatile ScheduledFuture<?> timer;

        private Waiting(EventLoop loop, MovingTables parkedUnder, Runnable retry, Runnable timedOut) {
            this.loop = loop;
            this.parkedUnder = parkedUnder;
            this.retry = retry;
            this.timedOut = timedOut;
        }

        private void retry() {
            if (finish()) {
                ScheduledFuture<?> t = timer;
                if (t != null) {
                    t.cancel(false);
                }
                run(retry);
            }
        }

        private void expire() {
            if (finish()) {
                timedOut.run(); // on the loop already
            }
        }

        /** The session closed: nothing runs. */
        public void cancel() {
            if (finish()) {
                ScheduledFuture<?> t = timer;
                if (t != null) {
                    t.cancel(false);
                }
            }
        }

        private boolean finish() {
            if (done.compareAndSet(false, true)) {
                waiting.remove(this);
                return true;
            }
            return false;
        }

        private void run(Runnable r) {
            try {
                loop.execute(r);
            } catch (RejectedExecutionException shutdown) {
                // the router is stopping: the session goes with it
            }
        }
    }
}
