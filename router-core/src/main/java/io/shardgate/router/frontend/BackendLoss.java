package io.shardgate.router.frontend;

import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.routing.Errors;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a session does when one of its backend connections is lost or closed by the query timeout:
 * reads the facts ({@link LossDecision}), closes the connection, and carries the decision out —
 * runs the statement again, answers it with ERROR 2013 / 3024, or closes the client whose server
 * session died. Event-loop confined; part of the command in flight.
 */
final class BackendLoss {
    private static final Logger log = LoggerFactory.getLogger(BackendLoss.class);

    private final CommandInFlight command;
    private final SessionPort session;
    private final SessionLifecycle lifecycle;

    BackendLoss(CommandInFlight command, SessionPort session, SessionLifecycle lifecycle) {
        this.command = command;
        this.session = session;
        this.lifecycle = lifecycle;
    }

    /** The connection of {@code lease} closed or failed (see {@code RelayTarget#backendLost}). */
    void lost(BackendLease lease, String reason, boolean midPacket, int nextSequenceId) {
        if (lifecycle.isClosed()) {
            return;
        }
        LossDecision loss = factsOf(lease, midPacket);
        LossDecision.Outcome outcome = loss.afterLoss();
        forget(lease, loss);
        StatementRetry retry = command.retry();
        if (outcome == LossDecision.Outcome.RETRY) {
            // the connection was dead before the server read the statement (a pooled connection
            // killed or timed out on the server): run it on a fresh one, the client sees nothing
            log.debug(
                    "connection {}: {}; running the statement again on another connection",
                    session.connectionId(),
                    reason);
            Consumer<PooledConnection> then = retry.then();
            Packet again = retry.next();
            session.services().metrics().statementRetried();
            // borrow after the loop's pending I/O: the closes of other pooled connections the
            // server dropped at the same moment are seen first, so those are not borrowed next
            session.client().eventLoop().execute(() -> command.again(lease, again, then));
            return;
        }
        retry.drop();
        if (outcome == LossDecision.Outcome.FINISH) {
            log.info(
                    "connection {}: {} while the router asked for the warning count after an answered statement;"
                            + " the session goes on, its warnings are lost",
                    session.connectionId(),
                    reason);
        } else if (loss.running() || loss.holdsState()) {
            log.warn(
                    "connection {}: {} ({})",
                    session.connectionId(),
                    reason,
                    loss.unread() ? "before the statement's response started" : "during the statement's response");
        }
        end(
                outcome,
                nextSequenceId,
                new ErrPacket(2013, "08S01", "Lost connection to backend during query: " + reason + note()));
    }

    /** The backend of {@code lease} stayed silent past the query timeout (see {@code RelayTarget#queryTimedOut}). */
    void timedOut(BackendLease lease, String reason, boolean midPacket, int nextSequenceId) {
        if (lifecycle.isClosed()) {
            return;
        }
        LossDecision loss = factsOf(lease, midPacket);
        forget(lease, loss);
        log.warn("connection {}: {}", session.connectionId(), reason);
        end(
                loss.afterTimeout(),
                nextSequenceId,
                Errors.of(ErrorCode.ER_QUERY_TIMEOUT, ErrorCode.ER_QUERY_TIMEOUT.format() + ": " + reason + note()));
    }

    /** The routed command's addition to a loss's error ("; transaction sg.5.12.7 ..."), or "". */
    private String note() {
        String note = command.lossNote();
        return note == null ? "" : "; " + note;
    }

    /** The facts of a loss on {@code lease}, read before it is discarded. */
    private LossDecision factsOf(BackendLease lease, boolean midPacket) {
        BackendLease active = command.active();
        return new LossDecision(
                command.commandBusy(),
                lease == active,
                active == null,
                lease == active && lease.internalPending(),
                command.uploading(),
                lease.holdsSessionState(),
                lease.current() != null && !lease.current().relay().responseStarted(),
                lease.writingStatement(),
                command.retry().kept(),
                command.retry().withinWindow(),
                midPacket,
                lease == active && command.checkingWarnings());
    }

    /** Closes the lost connection and drops what died with it. */
    private void forget(BackendLease lease, LossDecision loss) {
        boolean lostDiagnostics = lease.holdsDiagnostics();
        lease.discard();
        if (lostDiagnostics) {
            session.leases().diagnosticsUnknown(); // the warnings were in that server session
        }
        if (loss.setup()) {
            // a step of the router's own before the client's command died with the connection:
            // its callbacks, which would have sent or released the command, never run
            command.releaseUnsent();
        }
    }

    private void end(LossDecision.Outcome outcome, int sequenceId, ErrPacket error) {
        switch (outcome) {
            case ANSWER -> command.answer(sequenceId, error);
            case CLOSE_WITH_ERROR -> lifecycle.closeWith(session.frame(sequenceId, error::write));
            case CLOSE -> lifecycle.close();
            case FINISH -> command.checkLost();
            case RETRY, CONTINUE -> {}
        }
    }
}
