package io.shardgate.router.frontend;

import io.shardgate.cache.QualifiedTable;
import io.shardgate.router.execute.MoveWait;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * What waits for a session's command in flight to end: a move's cutover waits for every statement
 * dispatched before its hold, and for the transaction of a session that touched a held table. Runs
 * on the session's event loop; the session calls {@link #commandMayHaveEnded} after each command and
 * when it closes.
 */
final class CommandWaiters {
    private final List<Runnable> waiting = new ArrayList<>();
    private final CommandInFlight command;
    private final ClientSession session;
    private final BooleanSupplier closed;

    CommandWaiters(CommandInFlight command, ClientSession session, BooleanSupplier closed) {
        this.command = command;
        this.session = session;
        this.closed = closed;
    }

    /**
     * Runs {@code done} once the command now on its way to or back from a backend has ended, at once
     * when there is none or the session is closed.
     */
    void afterCommandInFlight(Runnable done) {
        if (closed.getAsBoolean() || !command.reachesBackend()) {
            done.run();
        } else {
            waiting.add(done);
        }
    }

    /**
     * Runs {@code done} once the command in flight has ended and so has the session's transaction if
     * it touched one of {@code held} ({@link MovingTablesTouched}): checked again after each command,
     * since a transaction ends only by one (or with the session). A move's cutover acknowledges its
     * hold after this, so no statement of such a transaction can run once the source is locked.
     */
    void afterCutoverBarrier(Set<QualifiedTable> held, Runnable done) {
        afterCommandInFlight(new Runnable() {
            @Override
            public void run() {
                if (closed.getAsBoolean()
                        || !MoveWait.transactionOpen(session)
                        || !session.movingTablesTouched().anyOf(held)) {
                    done.run();
                } else {
                    waiting.add(this);
                }
            }
        });
    }

    /** Runs the waiters when no command is in flight any more (or the session closed). */
    void commandMayHaveEnded() {
        if (!waiting.isEmpty() && (closed.getAsBoolean() || !command.reachesBackend())) {
            List<Runnable> ready = new ArrayList<>(waiting);
            waiting.clear();
            ready.forEach(Runnable::run);
        }
    }
}
