package io.shardgate.router.lease;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The read-your-writes clock of a writer lease: when the session's last write through it ended,
 * so reads right after a write stay on the writer rather than a replica that may lag ({@link
 * ReadWriteSplit}). A statement marked as writing also never runs twice ({@link StatementRetry}).
 * Event-loop confined.
 */
final class WriteClock {
    private final LongSupplier nanoTime;
    /** When the last write ended (nanoTime), 0 before the first. */
    private long lastWriteNanos;

    private boolean writing;

    /** {@code nanoTime}: {@code System::nanoTime}, or a test's ticker. */
    WriteClock(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** The statement about to run changes data: its end starts the read-your-writes window. */
    void writing() {
        writing = true;
        lastWriteNanos = nanoTime.getAsLong();
    }

    /** True while the statement in flight changes data. */
    boolean writingStatement() {
        return writing;
    }

    /** The statement in flight ended. */
    void statementEnded() {
        if (writing) {
            writing = false;
            lastWriteNanos = nanoTime.getAsLong();
        }
    }

    /** True when the session wrote through this lease less than {@code millis} before {@code now}. */
    boolean wroteWithin(long millis, long now) {
        return lastWriteNanos != 0 && now - lastWriteNanos < TimeUnit.MILLISECONDS.toNanos(millis);
    }
}
