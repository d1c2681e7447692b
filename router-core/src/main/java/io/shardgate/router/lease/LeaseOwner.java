package io.shardgate.router.lease;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.shardgate.router.session.LastInsertId;
import io.shardgate.sharding.digest.Digest;

/**
 * Who hears a lease's client-facing events: the command in flight. The lease implements the
 * backend's {@link io.shardgate.router.backend.RelayTarget} itself (internal commands end inside the
 * lease) and passes only what concerns the client's command on, naming itself so the owner knows
 * which of the session's leases spoke.
 */
public interface LeaseOwner {
    /** The client channel relayed bytes are written to. */
    Channel client();

    /** The relayed response(s) of the command ended. */
    void responsesComplete(BackendLease lease, int statusFlags, boolean lastWasError);

    /** The server asked for a LOCAL INFILE upload: client packets are file data until an empty one. */
    void localInfileRequested();

    /** A COM_STMT_PREPARE_OK is being relayed ({@code in} holds it whole, payload at {@code payload}). */
    void prepareOk(BackendLease lease, ByteBuf in, int payload);

    /** The lease's connection closed or failed. */
    void backendLost(BackendLease lease, String reason, boolean midPacket, int nextSequenceId);

    /** The lease's backend stayed silent past the query timeout and was closed. */
    void queryTimedOut(BackendLease lease, String reason, boolean midPacket, int nextSequenceId);

    /** The client session's LAST_INSERT_ID(): where it is (see {@link LastInsertId}). */
    LastInsertId lastInsertId();

    /** The digest of the client's statement being set up or run, or null (none, or not a statement). */
    Digest statementDigest();

    /**
     * {@code lease} gives back a connection whose server session holds the client session's
     * LAST_INSERT_ID() after a quiet second: read it ({@link BackendLease#readLastInsertId}), keep
     * it, then release; the session's next command waits for that.
     */
    void readBeforeRelease(BackendLease lease);
}
