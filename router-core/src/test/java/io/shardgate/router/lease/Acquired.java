package io.shardgate.router.lease;

import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.router.pool.PooledConnection;
import java.util.function.BiConsumer;

/** What a lease's acquire callback heard: nothing yet, a connection, or an error. */
final class Acquired implements BiConsumer<PooledConnection, ErrPacket> {
    int calls;
    PooledConnection connection;
    ErrPacket error;

    @Override
    public void accept(PooledConnection connection, ErrPacket error) {
        calls++;
        this.connection = connection;
        this.error = error;
    }

    boolean heard() {
        return calls > 0;
    }
}
