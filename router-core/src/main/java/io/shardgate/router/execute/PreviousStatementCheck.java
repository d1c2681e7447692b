package io.shardgate.router.execute;

import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.routing.Errors;

/**
 * A statement that calls FOUND_ROWS() or ROW_COUNT() runs on a backend only where the server's
 * value is the session's: on the connection that ran the session's previous statement and has not
 * left it since (see {@link io.shardgate.router.session.PreviousStatement}). Elsewhere the server
 * would answer with another statement's outcome, so the router refuses.
 */
final class PreviousStatementCheck {
    private PreviousStatementCheck() {}

    /** The refusal for a statement that reads the previous statement's outcome on {@code lease}, or null to run it. */
    static ErrPacket refusal(SessionPort session, BackendLease lease) {
        if (session.previous().serverKnows(lease, lease.current() != null, lease.epoch())) {
            return null;
        }
        return Errors.notSupported("FOUND_ROWS() or ROW_COUNT() after a statement that ran on several shards or on"
                + " another pooled connection (its value is not this session's there; SELECT SQL_CALC_FOUND_ROWS,"
                + " a transaction or multiplexing: false keep the session on one connection)");
    }
}
