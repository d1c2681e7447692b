package io.shardgate.router.frontend;

/**
 * What a session does when one of its backend connections is lost (closed, failed) or closed by
 * the query timeout: the dead-connection retry policy. The facts are read from the session, its
 * command in flight and the lease at the moment of the loss; the decision is a pure function of
 * them, so it is unit-tested without a server.
 *
 * @param busy a command is between dispatch and the end of its response
 * @param onActive the lost lease runs the command in flight
 * @param routed the command in flight is answered by the router from several connections
 * @param setup a command of the router's own (alignment, BEGIN, a lazy prepare) awaited its response
 * @param uploading a LOCAL INFILE upload was running
 * @param holdsState the connection held session state that dies with it (see {@link BackendLease#holdsSessionState})
 * @param unread no byte of the statement's response had arrived
 * @param writing the statement in flight changes data
 * @param kept the statement is kept for another run ({@link StatementRetry})
 * @param withinWindow the loss came soon enough after sending ({@link StatementRetry#withinWindow})
 * @param midPacket part of a packet was already relayed to the client: no ERR can follow
 * @param checking the client's statement was answered whole and the lost lease ran the router's own
 *     check after it ({@link DiagnosticsHold#COUNT}): the command waited only for that
 */
record LossDecision(
        boolean busy,
        boolean onActive,
        boolean routed,
        boolean setup,
        boolean uploading,
        boolean holdsState,
        boolean unread,
        boolean writing,
        boolean kept,
        boolean withinWindow,
        boolean midPacket,
        boolean checking) {

    /** What the session does next. */
    enum Outcome {
        /** Run the statement again on a fresh connection; the client sees nothing. */
        RETRY,
        /** Answer the client's statement with the ERR and go on. */
        ANSWER,
        /** Send the ERR, then close the client: its server session is gone. */
        CLOSE_WITH_ERROR,
        /** Close the client without an ERR (one cannot be inserted, or nothing was running). */
        CLOSE,
        /** Nothing: an idle, unpinned session borrows another connection next time. */
        CONTINUE,
        /**
         * End the command as answered (the client has its whole response): only the warnings that
         * connection held are lost, so the session's diagnostics are unknown.
         */
        FINISH
    }

    /** The command in flight was affected: it ran on the lost lease, or on several. */
    boolean running() {
        return busy && (onActive || routed);
    }

    /** The loss ends a statement of the client's own whose response the lease was relaying. */
    private boolean relayed() {
        return busy && onActive && !setup && !uploading;
    }

    /** The connection closed or failed ({@code RelayTarget#backendLost}). */
    Outcome afterLoss() {
        if (busy && onActive && checking) {
            // the client is between statements, as when idle: an ERR now would answer its next one
            return holdsState ? Outcome.CLOSE : Outcome.FINISH;
        }
        if (running()
                && onActive
                && !holdsState
                && kept
                && unread
                && !writing
                // a setup step was cut: the client's statement itself never left the router
                && (setup || withinWindow)) {
            // the connection was dead before the server read the statement (a pooled connection
            // killed or timed out on the server)
            return Outcome.RETRY;
        }
        if (relayed() && !midPacket && !holdsState) {
            // the client's own statement, and nothing of the session lived on that server session
            return Outcome.ANSWER;
        }
        if (running() && !midPacket) {
            return Outcome.CLOSE_WITH_ERROR;
        }
        // its server session (transaction, variables, locks) is gone: so must the client's be
        return running() || holdsState ? Outcome.CLOSE : Outcome.CONTINUE;
    }

    /** The backend stayed silent past the query timeout and the relay closed it ({@code RelayTarget#queryTimedOut}). */
    Outcome afterTimeout() {
        if (busy && onActive && checking) {
            return holdsState ? Outcome.CLOSE : Outcome.FINISH;
        }
        if (relayed() && !midPacket && !holdsState) {
            return Outcome.ANSWER;
        }
        if (!midPacket && ((busy && onActive) || (busy && routed))) {
            // its transaction, variables or locks are gone with the connection: so is the client's session
            return Outcome.CLOSE_WITH_ERROR;
        }
        return Outcome.CLOSE;
    }
}
