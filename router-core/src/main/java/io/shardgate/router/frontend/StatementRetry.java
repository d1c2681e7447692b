package io.shardgate.router.frontend;

import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.StatementEffects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The statement in flight kept for another run: a pooled connection the server killed or timed
 * out while the router was about to use it is lost before the server reads the statement, and a
 * statement that changes no data then runs once more on a fresh connection, the client seeing
 * nothing ({@link LossDecision} decides when a loss counts as that). The statement
 * is kept (one reference of its own) until its response starts. Event-loop confined.
 */
final class StatementRetry {
    /** Attempts of a retryable statement at most, the first included. */
    static final int MAX_TRIES = 3;
    /**
     * How soon after sending a connection loss still counts as "dead before the server read the
     * statement". MySQL gives no acknowledgement, and a pooled connection the server closed while
     * idle looks the same as a statement the server read and was then killed (KILL, a crash): both
     * end in a bare close. The first is noticed within a round trip and an event-loop turn; an
     * operator's KILL of a running query comes later, and that query must fail, not run again.
     */
    static final long RETRY_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** The statement in flight, or null when it cannot be retried. */
    private Packet packet;
    /** What runs the statement on the connection borrowed for it. */
    private Consumer<PooledConnection> then;
    /** How often the command in flight ran again. */
    private int retries;
    /** When the statement in flight went to its current connection (System.nanoTime()). */
    private long sentNanos;

    /**
     * Whether a statement may run again on another connection if the one just borrowed for it is
     * lost before any byte of the response arrived: it carries no session state. Only statements
     * that change no data are retried, because a server that read one and died before answering
     * may have run it; a read run twice is harmless.
     */
    static boolean eligible(BackendLease lease, Response response, StatementEffects effects) {
        return lease.current() == null
                && response != null
                && effects.pins().isEmpty()
                && effects.variables().isEmpty()
                && effects.schema() == null;
    }

    /** A new command: forgets the last one's, and keeps {@code packet} and {@code then} when {@code retryable}. */
    void start(Packet packet, Consumer<PooledConnection> then, boolean retryable) {
        drop();
        retries = 0;
        if (retryable) {
            this.packet = packet.retain();
            this.then = then;
        }
    }

    /** The statement goes to the connection just borrowed for it. */
    void sent() {
        sentNanos = System.nanoTime();
    }

    /** Whether a statement is kept for another run. */
    boolean kept() {
        return packet != null;
    }

    /** Whether a loss now is soon enough after sending to count as "dead before the server read it". */
    boolean withinWindow() {
        return System.nanoTime() - sentNanos < RETRY_WINDOW_NANOS;
    }

    /** What runs the kept statement on a connection; read before {@link #next}. */
    Consumer<PooledConnection> then() {
        return then;
    }

    /**
     * The kept statement for one more run (its reference passes to the caller); kept again, for a
     * server that dropped several connections at once, unless that was the last try.
     */
    Packet next() {
        Packet again = packet;
        if (++retries < MAX_TRIES) {
            packet = again.retain();
        } else {
            packet = null;
            then = null;
        }
        return again;
    }

    /** Releases the kept statement: its response started, or the command ended otherwise. */
    void drop() {
        if (packet != null) {
            packet.release();
            packet = null;
            then = null;
        }
    }
}
