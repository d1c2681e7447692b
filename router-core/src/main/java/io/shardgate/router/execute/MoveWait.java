package io.shardgate.router.execute;

import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.frontend.MovingTablesTouched;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.move.MoveHolds;
import io.shardgate.router.move.MovingTables;
import io.shardgate.router.move.StatementHold;
import io.shardgate.router.routing.Errors;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.Targets;

/**
 * A session's statements while moves are under way ({@link StatementHold}): DDL on a moving table is
 * refused; a statement on a table whose move cuts over waits (the command stays in flight, routed
 * by the router, like a wait for a result-cache fill) and is routed again when the moves change,
 * so it runs under the new rules; it fails with 1205 when the wait outlasts the hold timeout. While a
 * switched move cleans up, its route decides (a statement without one, {@code null}, waits). One
 * per executor of a session (text and prepared statements), used on the session's event loop.
 */
public final class MoveWait {
    private final SessionPort session;
    /** When the statement being routed stops waiting (System.nanoTime()), 0 while it is not waiting. */
    private long deadline;

    public MoveWait(SessionPort session) {
        this.session = session;
    }

    /**
     * Whether no move is under way (then nothing else here need run): the statement path's one
     * volatile read, checked before a re-route closure is even made.
     */
    boolean idle() {
        if (session.services().moves().tables().none()) {
            stopWaiting();
            return true;
        }
        return false;
    }

    /** Whether a transaction of the session is open: on a server, or begun here (BEGIN not sent yet). */
    public static boolean transactionOpen(SessionPort session) {
        return session.leases().serverTransactionOpen() || session.transaction().start() != null;
    }

    /** Autocommit off: the statement runs in (or begins) a transaction. */
    private static boolean autocommitOff(SessionPort session) {
        return (session.leases().statusFlags() & ServerStatus.SERVER_STATUS_AUTOCOMMIT) == 0;
    }

    /** The statement being routed runs or fails now: a wait it had is over. */
    private void stopWaiting() {
        if (deadline != 0) {
            session.services().moves().waited(deadline);
            deadline = 0;
        }
    }

    /**
     * Whether the statement of normalized {@code text} is answered or parked here (true: {@code
     * packet} taken; {@code rerun} routes it again later) or runs now (false).
     */
    boolean holds(Packet packet, String schema, String text, Route route, Runnable rerun) {
        MoveHolds moves = session.services().moves();
        MovingTables tables = moves.tables();
        if (tables.none()) {
            stopWaiting();
            return false; // the common case: one volatile read
        }
        MovingTablesTouched touched = session.movingTablesTouched();
        if (!transactionOpen(session)) {
            touched.transactionOver();
        }
        StatementHold.Outcome outcome = StatementHold.decide(tables, schema, text);
        if (outcome == StatementHold.Outcome.WAIT
                && StatementHold.runsWithItsTransaction(tables, touched.tables(), schema, text)) {
            // waiting here, its transaction would never end and no cutover could lock the source
            outcome = StatementHold.Outcome.RUN;
        }
        if (outcome == StatementHold.Outcome.BY_ROUTE) {
            Plan plan = route == null ? null : route.plan();
            Targets targets = null;
            if (plan != null) {
                try {
                    targets = route.targets(plan);
                } catch (RuntimeException e) {
                    targets = null; // not worked out: it waits
                }
            }
            outcome = StatementHold.duringCleanup(tables, schema, text, plan, targets);
        }
        switch (outcome) {
            case RUN -> {
                stopWaiting();
                if (transactionOpen(session) || autocommitOff(session)) {
                    touched.ran(StatementHold.referenced(tables, schema, text));
                }
                return false;
            }
            case REFUSE_DDL -> {
                stopWaiting();
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

    /**
     * How a statement is routed, worked out only when a cleanup needs it (a plan-cache hit, then its
     * targets for this execution).
     */
    interface Route {
        /** The statement's plan, or null when none routes it (a query rule's destination). */
        Plan plan();

        /** Where this execution of {@code plan} runs. */
        Targets targets(Plan plan);
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
                    stopWaiting();
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
