package io.shardgate.router.frontend;

/**
 * What a graceful drain (the router shutting down on SIGTERM) does with one client session at a
 * given moment. A session is closed only between statements, so no client loses the answer to a
 * statement the router has started; a session in a transaction keeps its connection until it
 * ends the transaction (COMMIT or ROLLBACK) or the drain's grace is over, when it is closed like a
 * killed connection and its backends roll the transaction back.
 */
enum DrainDecision {
    /** Not draining, or a statement is in flight, or a transaction is open within the grace: leave it. */
    KEEP,
    /** Between statements and outside a transaction: close it now. */
    CLOSE_IDLE,
    /** The grace is over: close it, in whatever state (a statement in flight fails with the connection). */
    CLOSE_GRACE_OVER;

    /**
     * @param draining the router is draining
     * @param graceOver {@code server.drain_timeout_millis} has passed since the drain began
     * @param statementInFlight a command is running, queued, uploading or changing the user
     * @param inTransaction an explicit transaction is open (BEGIN seen), or a backend reports one
     *     (autocommit off)
     */
    static DrainDecision decide(boolean draining, boolean graceOver, boolean statementInFlight, boolean inTransaction) {
        if (!draining) {
            return KEEP;
        }
        if (graceOver) {
            return CLOSE_GRACE_OVER;
        }
        return statementInFlight || inTransaction ? KEEP : CLOSE_IDLE;
    }
}
