package io.shardgate.router.lease;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.router.net.PacketWriter;
import io.shardgate.router.pool.PooledConnection;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The router's own commands on a lease's connection (alignment, BEGIN, SAVEPOINT, a diagnostics
 * count, a merge's query): one at a time, sent with sequence id 0, their responses routed here by
 * the relay rather than to the client. Event-loop confined; part of {@link BackendLease}.
 */
final class InternalCommands {
    /** Receives the response of the command in flight. */
    private BiConsumer<ByteBuf, Boolean> pending;
    /** Receives the bytes of a streamed response as they arrive (ownership passes). */
    private Consumer<ByteBuf> chunks;
    /** Commands sent so far: part of the lease's epoch. */
    private long sent;

    /** Sends {@code command} on {@code connection}; its framed response goes to {@code onResponse}. */
    void send(
            PooledConnection connection,
            Consumer<ByteBuf> command,
            Response response,
            BiConsumer<ByteBuf, Boolean> onResponse) {
        send(connection, command, response, onResponse, true);
    }

    /**
     * As {@link #send}, but written without a flush: the client's command written next goes out in
     * the same flush, and its response, read behind this one's, goes to the client.
     */
    void sendAhead(
            PooledConnection connection,
            Consumer<ByteBuf> command,
            Response response,
            BiConsumer<ByteBuf, Boolean> onResponse) {
        send(connection, command, response, onResponse, false);
    }

    private void send(
            PooledConnection connection,
            Consumer<ByteBuf> command,
            Response response,
            BiConsumer<ByteBuf, Boolean> onResponse,
            boolean flush) {
        pending = (bytes, error) -> {
            pending = null;
            onResponse.accept(bytes, error);
        };
        connection.relay().expectInternal(response, connection.channel());
        write(connection, command, flush);
    }

    /**
     * Sends {@code command} whose response is streamed: its framed bytes go to {@code chunks} as
     * they arrive (each chunk owned by the consumer), then {@code onEnd} hears whether it ended in
     * an ERR.
     */
    void stream(
            PooledConnection connection,
            Consumer<ByteBuf> command,
            Response response,
            Consumer<ByteBuf> chunks,
            Consumer<Boolean> onEnd) {
        this.chunks = chunks;
        pending = (bytes, error) -> {
            pending = null;
            this.chunks = null;
            onEnd.accept(error);
        };
        connection.relay().expectInternalStream(response);
        write(connection, command, true);
    }

    private void write(PooledConnection connection, Consumer<ByteBuf> command, boolean flush) {
        sent++;
        ByteBuf packet = PacketWriter.frame(connection.channel().alloc(), 0, 64, command);
        if (flush) {
            connection.channel().writeAndFlush(packet);
        } else {
            connection.channel().write(packet, connection.channel().voidPromise());
        }
    }

    /** True while a command awaits its response. */
    boolean pending() {
        return pending != null;
    }

    /** Routes a command's response; true if one was awaited. */
    boolean response(ByteBuf response, boolean error) {
        if (pending == null) {
            return false;
        }
        pending.accept(response, error);
        return true;
    }

    /** Bytes of a streamed response; released when no stream awaits them. */
    void chunk(ByteBuf chunk) {
        Consumer<ByteBuf> to = chunks;
        if (to == null) {
            chunk.release();
        } else {
            to.accept(chunk);
        }
    }

    /** The connection is gone: the callbacks never run. */
    void drop() {
        pending = null;
        chunks = null;
    }

    long sent() {
        return sent;
    }
}
