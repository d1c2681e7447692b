package io.shardgate.router.frontend;

import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.move.MoveHolds;
import io.shardgate.router.move.MovingTables;
import io.shardgate.router.move.StatementHold;

/**
 * A session's statements while moves are under way ({@link StatementHold}): DDL on a moving table is
 * refused; a statement on a table whose move cuts over waits (the command stays in flight, routed
 * by the router, like a wait for a result-cache fill) and is routed again when the moves change,
 * so it runs under the new rules; it fails with 1205 when the wait outlasts the hold timeout. One
 * per executor of a session (text and prepared statements), used on the session's event loop.
 */
final class MoveWait {
    private final SessionPort session;
    /** When the statement being routed stops waiting (System.nanoTime()), 0 while it is not waiting. */
    private long deadline;

    MoveWait(SessionPort session) {
        this.session = session;
    }

    /**
     * Whether no move is under way (then nothing else here need run): the statement path's one
     * volatile read, checked before a re-route closure is even made.
     */
    boolean idle() {
        if (session.services().moves().tables().none()) {
            deadline = 0;
            return true;
        }
        return false;
    }

    /**
     * Whether the statement of normalized {@code text} is answered or parked here (true: {@code
     * packet} taken; {@code rerun} routes it again later) or runs now (false).
     */
    boolean holds(Packet packet, String schema, String text, Runnable rerun) {
        MoveHolds moves = session.services().moves();
        MovingTables tables = moves.tables();
        if (tables.none()) {
            deadline = 0;
            return false; // the common case: one volatile read
        }
        switch (StatementHold.decide(tables, schema, text)) {
            case RUN -> {
                deadline = 0;
                return false;
            }
            case REFUSE_DDL -> {
                packet.release();
                session.reply(
                        1,
                        Errors.notSupported("DDL on a table that move " + StatementHold.moveOf(tables, schema, text)
                                + " is moving (run it after the move ends, or cancel the move)"));
                return true;
            }
            case WAIT -> {
                park(packet, tables, rerun);
                return true;
            }
            default -> throw new IllegalStateException("unknown outcome");
        }
    }

    private void park(Packet packet, MovingTables tables, Runnable rerun) {
        MoveHolds moves = session.services().moves();
        if (deadline == 0) {
            deadline = moves.deadlineFromNow();
        }
        MoveHolds.Waiting[] waiting = new MoveHolds.Waiting[1];
        session.startRouted(() -> {
            waiting[0].cancel();
            packet.release();
        });
        session.waitsForMove();
        waiting[0] = moves.park(
                session.client().eventLoop(),
                tables,
                deadline,
                () -> session.resumeRouted(rerun),
                () -> session.resumeRouted(() -> {
                    deadline = 0;
                    packet.release();
                    session.reply(
                            1,
                            Errors.of(
                                    ErrorCode.ER_LOCK_WAIT_TIMEOUT,
                                    "Lock wait timeout exceeded; try restarting transaction (the statement waited for"
                                            + " the cutover of a move of its table)"));
                }));
    }
}
