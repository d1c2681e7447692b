package io.shardgate.router.pool;

import io.shardgate.router.backend.BackendConnection;
import io.shardgate.router.session.SessionVariables;

/**
 * Test support: puts a logged-in connection among a partition's idle connections, as if the
 * partition had opened it for an earlier borrower who gave it back, so a lease under test borrows
 * it through the real pool ({@code fakebackend.RecordingBackend} uses it). The connection takes one
 * of the server's slots; the partition's own count of what it opened does not include it.
 */
public final class IdleConnections {
    private IdleConnections() {}

    /**
     * Adds {@code connection}, whose server session holds {@code state}, and returns its pooled form;
     * its relay gives up on a server silent for {@code queryTimeoutMillis} (0: never).
     */
    public static PooledConnection add(
            PoolPartition partition,
            BackendConnection connection,
            boolean deprecateEof,
            int queryTimeoutMillis,
            ConnectionKind kind,
            SessionVariables state) {
        if (!partition.pool().tryReserve()) {
            throw new IllegalStateException("the pool's max_connections are all taken");
        }
        PooledConnection c = new PooledConnection(
                connection,
                deprecateEof,
                queryTimeoutMillis,
                partition,
                kind,
                state,
                partition.pool().globalsVersion());
        partition.release(c);
        return c;
    }

    /** Idle connections in {@code partition}. */
    public static int count(PoolPartition partition) {
        return partition.idleCount();
    }
}
