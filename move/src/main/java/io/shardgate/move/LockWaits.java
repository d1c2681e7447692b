package io.shardgate.move;

import java.sql.SQLException;

/**
 * Runs a mover step again when InnoDB gave up waiting for a row lock (1205) or chose it as a deadlock
 * victim (1213): the source's clients hold the rows the mover reads with shared locks ({@link
 * RowReader#committed}) as long as their transactions run, which is no reason to fail a move.
 */
final class LockWaits {
    /** A step that may be run again from its start. */
    @FunctionalInterface
    interface Step<T> {
        T run() throws SQLException;
    }

    static final int ATTEMPTS = 20;

    private LockWaits() {}

    static <T> T retried(Step<T> step) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                return step.run();
            } catch (SQLException e) {
                if ((e.getErrorCode() != 1205 && e.getErrorCode() != 1213) || attempt == ATTEMPTS) {
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
}
