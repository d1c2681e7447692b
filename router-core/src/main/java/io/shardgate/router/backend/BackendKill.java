package io.shardgate.router.backend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.net.PacketWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * One {@code KILL [QUERY] <thread id>} sent to a backend server on a connection of its own (the
 * connection to be interrupted is busy with the statement): log in, send it, read the OK or ERR,
 * {@code COM_QUIT}. Outside the pool, like the monitor's checks, so a full pool cannot hold a
 * KILL back. The thread being gone already (1094) counts as done: what it ran has ended.
 *
 * <p>Sits behind the login's frame decoder and reads whole {@link Packet}s (released by
 * {@link SimpleChannelInboundHandler}).
 */
public final class BackendKill extends SimpleChannelInboundHandler<Packet> {
    /** A KILL is answered at once; a server silent this long is not going to. */
    static final int TIMEOUT_SECONDS = 10;

    private final String sql;
    private final Promise<Void> done;

    private BackendKill(String sql, Promise<Void> done) {
        this.sql = sql;
        this.done = done;
    }

    /**
     * Sends {@code KILL QUERY threadId} ({@code connection}: {@code KILL CONNECTION}) to the server
     * at {@code address}; the future fails with a {@link BackendException} when the server refused
     * it or could not be reached.
     */
    public static Future<Void> send(
            BackendConnector connector,
            EventLoop loop,
            BackendAddress address,
            BackendLogin login,
            long threadId,
            boolean connection) {
        Promise<Void> done = loop.newPromise();
        String sql = (connection ? "KILL CONNECTION " : "KILL QUERY ") + threadId;
        var deadline = loop.schedule(
                () -> done.tryFailure(new BackendException(new ErrPacket(
                        2013,
                        "HY000",
                        "No answer from backend " + address + " to " + sql + " within " + TIMEOUT_SECONDS + " s"))),
                TIMEOUT_SECONDS,
                TimeUnit.SECONDS);
        connector.connect(loop, address, login).addListener(f -> {
            if (!f.isSuccess()) {
                done.tryFailure(f.cause());
                return;
            }
            BackendConnection c = (BackendConnection) f.getNow();
            if (done.isDone()) {
                c.close(); // timed out meanwhile
                return;
            }
            c.channel().pipeline().addLast("kill", new BackendKill(sql, done));
            done.addListener(d -> {
                if (!d.isSuccess()) {
                    c.close();
                }
            });
        });
        done.addListener(d -> deadline.cancel(false));
        return done;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(PacketWriter.frame(
                ctx.alloc(),
                0,
                1 + sql.length(),
                out -> out.writeByte(Command.COM_QUERY.code()).writeCharSequence(sql, StandardCharsets.US_ASCII)));
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Packet packet) {
        ByteBuf in = packet.payload();
        if (in.isReadable() && in.getUnsignedByte(in.readerIndex()) == ErrPacket.HEADER) {
            ErrPacket err = ErrPacket.read(in);
            if (err.code() == ErrorCode.ER_NO_SUCH_THREAD.code()) {
                done.trySuccess(null); // it ended meanwhile
            } else {
                done.tryFailure(new BackendException(err));
            }
        } else {
            done.trySuccess(null);
        }
        ctx.writeAndFlush(PacketWriter.frame(ctx.alloc(), 0, 1, out -> out.writeByte(Command.COM_QUIT.code())))
                .addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        done.tryFailure(
                new BackendException(new ErrPacket(2013, "08S01", "Lost connection to backend while sending " + sql)));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        done.tryFailure(cause);
        ctx.close();
    }
}
