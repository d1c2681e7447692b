package io.shardgate.router.lease;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.backend.BackendException;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.pool.PoolPartition;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.routing.BackendServer;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.routing.Hostgroup;
import java.util.function.BiConsumer;

/**
 * How a lease takes a connection from its hostgroup's pools: the writer, or for a reader lease a
 * reader by weight (the writer if none); the connection it returned last first (affinity); and once
 * more, elsewhere when there is an elsewhere, when the first try failed before anything reached a
 * server. Pool timeouts and a shutting-down server are answered at once. Event-loop confined; part
 * of {@link BackendLease}.
 */
final class HostgroupBorrow {
    private final Hostgroup hostgroup;
    private final boolean reads;
    private final EventLoop loop;
    /** The connection returned last; asked for first next time (affinity). */
    private PooledConnection previous;

    HostgroupBorrow(Hostgroup hostgroup, boolean reads, EventLoop loop) {
        this.hostgroup = hostgroup;
        this.reads = reads;
        this.loop = loop;
    }

    /** {@code c} went back to its pool: ask for it first next time. */
    void returned(PooledConnection c) {
        previous = c;
    }

    /**
     * Borrows a live connection of {@code kind}; {@code then} hears it, or the error to answer the
     * client. No second try once {@code client} has gone.
     */
    void borrow(ConnectionKind kind, Channel client, BiConsumer<PooledConnection, ErrPacket> then) {
        borrow(server(null), kind, client, then, true);
    }

    /** The server for a new borrow: the writer, or for a read a reader by weight (the writer if none). */
    private BackendServer server(BackendServer failed) {
        if (reads) {
            BackendServer reader = hostgroup.pickReader(failed);
            if (reader != null) {
                return reader;
            }
        }
        return hostgroup.writer();
    }

    private void borrow(
            BackendServer server,
            ConnectionKind kind,
            Channel client,
            BiConsumer<PooledConnection, ErrPacket> then,
            boolean retry) {
        PoolPartition partition = server.pool().partition(loop);
        Future<PooledConnection> borrow =
                partition.acquire(kind, previous != null && previous.partition() == partition ? previous : null);
        previous = null;
        if (borrow.isDone()) {
            onBorrowed(borrow, server, kind, client, then, retry);
        } else {
            borrow.addListener(f -> onBorrowed(borrow, server, kind, client, then, retry));
        }
    }

    private void onBorrowed(
            Future<PooledConnection> borrow,
            BackendServer server,
            ConnectionKind kind,
            Channel client,
            BiConsumer<PooledConnection, ErrPacket> then,
            boolean retry) {
        if (!borrow.isSuccess()) {
            Throwable cause = borrow.cause();
            ErrPacket error = cause instanceof BackendException be
                    ? be.error()
                    : Errors.of(ErrorCode.ER_UNKNOWN_ERROR, "no backend connection: " + cause);
            if (retry
                    && error.code() != PoolPartition.ER_MAX_CONNECT_TIMEOUT
                    && error.code() != PoolPartition.ER_SERVER_SHUTDOWN
                    && client.isActive()) {
                // nothing reached a server yet: try once more, elsewhere when there is an elsewhere
                borrow(server(server), kind, client, then, false);
            } else {
                then.accept(null, error);
            }
            return;
        }
        PooledConnection c = borrow.getNow();
        if (!c.channel().isActive()) {
            // died between the pool's check and now: nothing was sent on it, so take another
            c.partition().discard(c);
            if (retry) {
                borrow(server(server), kind, client, then, false);
            } else {
                then.accept(null, new ErrPacket(2013, "08S01", "Lost connection to backend " + server.address()));
            }
            return;
        }
        then.accept(c, null);
    }
}
