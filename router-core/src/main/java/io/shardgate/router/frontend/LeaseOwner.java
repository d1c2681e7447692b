package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/**
 * The client session behind a {@link BackendLease}: where relayed bytes go and who hears what
 * happened on the lease's connection. These are the client-facing events of the connection's
 * {@link io.shardgate.router.backend.RelayTarget}, passed on by the lease, which keeps the router's
 * own (internal) responses; a session holds one lease per hostgroup, so every call names the lease.
 */
interface LeaseOwner {
    /** The client channel relayed bytes are written to. */
    Channel client();

    /** The relayed response(s) of a command ended. */
    void responsesComplete(BackendLease lease, int statusFlags, boolean lastWasError);

    /** The server asked for a LOCAL INFILE upload. */
    void localInfileRequested();

    /** A COM_STMT_PREPARE_OK is being relayed (see {@code RelayTarget#prepareOk}). */
    void prepareOk(BackendLease lease, ByteBuf in, int payload);

    /** The lease's connection closed or failed (see {@code RelayTarget#backendLost}). */
    void backendLost(BackendLease lease, String reason, boolean midPacket, int nextSequenceId);

    /** The lease's backend stayed silent past the query timeout and was closed (see {@code RelayTarget#queryTimedOut}). */
    void queryTimedOut(BackendLease lease, String reason, boolean midPacket, int nextSequenceId);
}
