package io.shardgate.move;

import java.sql.SQLException;
import java.time.Duration;

/**
 * Runs a mover step again when InnoDB gave up waiting for a row lock (1205) or chose it as a deadlock
 * victim (1213): the source's clients hold the rows the mover reads with shared locks ({@link
 * RowReader#committed}) as long as their transactions run, which is no reason to fail a move. The
 * mover's reads of many rows give up at once when one is locked ({@link RowReader#chunkNoWait},
 * {@link RowReader#byKeysWithoutDeadlocks}) and then wait for one row at a time, holding no other
 * lock, so they never take part in a deadlock with a client; such a wait lasts {@value
 * ShardSessions#LOCK_WAIT_SECONDS} s at a time ({@link ShardSessions#forLockingReads}) and the step
 * is tried again for up to {@link #BUDGET} in all.
 */
final class LockWaits {
    /** A step that may be run again from its start. */
    @FunctionalInterface
    interface Step<T> {
        T run() throws SQLException;
    }

    /** How long a step keeps trying (a client transaction holding a moving row that long fails the move). */
    static final Duration BUDGET = Duration.ofMinutes(5);

    private LockWaits() {}

    static <T> T retried(Step<T> step) throws SQLException {
        return retried(step, BUDGET);
    }

    static <T> T retried(Step<T> step, Duration budget) throws SQLException {
        long deadline = System.nanoTime() + budget.toNanos();
        for (int attempt = 1; ; attempt++) {
            try {
                return step.run();
            } catch (SQLException e) {
                if (!lockWait(e) || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                try {
                    Thread.sleep(Math.min(1000, 10L * attempt * attempt));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /**
     * A read with NOWAIT met a row locked by another transaction: MariaDB answers
     * ER_LOCK_WAIT_TIMEOUT, MySQL 8 ER_LOCK_NOWAIT.
     */
    static boolean lockedNow(SQLException e) {
        return e.getErrorCode() == 1205 || e.getErrorCode() == 3572;
    }

    /** A lock wait timeout or a deadlock: the step did nothing and may run again. */
    static boolean lockWait(SQLException e) {
        return e.getErrorCode() == 1205 || e.getErrorCode() == 1213;
    }
}
