package io.shardgate.router.backend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.net.PacketWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One text statement of the router's own on a connection of its own, outside the pool and any
 * client session (schema tracking's SELECT on information_schema, the two-phase resolver's XA
 * RECOVER / XA COMMIT / XA ROLLBACK): log in, send it, collect the rows as strings (NULL as null),
 * then COM_QUIT so the server counts a clean disconnect.
 *
 * <p>Sits behind the login's frame decoder and reads whole {@link Packet}s (released by {@link
 * SimpleChannelInboundHandler}). The connection is opened without CLIENT_DEPRECATE_EOF: the column
 * definitions and the rows each end with an EOF packet.
 */
public final class DirectStatement extends SimpleChannelInboundHandler<Packet> {
    /** The answer: a result set's rows ({@code resultSet}), an OK (no rows), or the server's {@code error}. */
    public record Answer(boolean resultSet, List<List<String>> rows, ErrPacket error) {}

    private final List<String> statements;
    private final Promise<List<Answer>> result;
    private final List<Answer> answers = new ArrayList<>();
    /** -1 before the column count, then column definitions still to read. */
    private int columnsLeft = -1;

    private boolean inRows;
    private List<List<String>> rows = new ArrayList<>();

    private DirectStatement(List<String> statements, Promise<List<Answer>> result) {
        this.statements = List.copyOf(statements);
        this.result = result;
    }

    /**
     * Runs {@code sql} on a new connection to {@code address} logged in with {@code login}; the
     * future fails when the connection cannot be made, closes, or gives no answer within {@code
     * timeoutMillis}.
     */
    public static Future<Answer> run(
            BackendConnector connector,
            EventLoop loop,
            BackendAddress address,
            BackendLogin login,
            String sql,
            long timeoutMillis) {
        Promise<Answer> one = loop.newPromise();
        runEach(connector, loop, address, login, List.of(sql), timeoutMillis).addListener(f -> {
            if (f.isSuccess()) {
                @SuppressWarnings("unchecked")
                List<Answer> answers = (List<Answer>) f.getNow();
                one.trySuccess(answers.get(0));
            } else {
                one.tryFailure(f.cause());
            }
        });
        return one;
    }

    /**
     * Runs {@code statements} one after the other on one new connection (one login), each whatever
     * the previous one answered; the future has an answer per statement, or fails as {@link #run}'s.
     */
    public static Future<List<Answer>> runEach(
            BackendConnector connector,
            EventLoop loop,
            BackendAddress address,
            BackendLogin login,
            List<String> statements,
            long timeoutMillis) {
        Promise<List<Answer>> result = loop.newPromise();
        ScheduledFuture<?> deadline = loop.schedule(
                () -> result.tryFailure(new IllegalStateException("no answer within " + timeoutMillis + " ms")),
                timeoutMillis,
                TimeUnit.MILLISECONDS);
        Future<BackendConnection> connect = connector.connect(loop, address, login);
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                result.tryFailure(f.cause());
                return;
            }
            BackendConnection connection = connect.getNow();
            if (result.isDone()) {
                connection.close();
                return;
            }
            connection.channel().pipeline().addLast("statement", new DirectStatement(statements, result));
            result.addListener(r -> {
                if (!r.isSuccess()) {
                    connection.close();
                }
            });
        });
        result.addListener(r -> deadline.cancel(false));
        return result;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        send(ctx);
    }

    private void send(ChannelHandlerContext ctx) {
        String sql = statements.get(answers.size());
        ctx.writeAndFlush(PacketWriter.frame(
                ctx.alloc(),
                0,
                1 + sql.getBytes(StandardCharsets.UTF_8).length,
                out -> out.writeByte(Command.COM_QUERY.code()).writeCharSequence(sql, StandardCharsets.UTF_8)));
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Packet packet) {
        ByteBuf in = packet.payload();
        int header = in.getUnsignedByte(in.readerIndex());
        if (header == ErrPacket.HEADER) {
            finish(ctx, new Answer(false, List.of(), ErrPacket.read(in)));
        } else if (columnsLeft < 0) {
            if (header == 0x00) {
                finish(ctx, new Answer(false, List.of(), null));
            } else {
                columnsLeft = (int) LengthEncoded.readInt(in);
            }
        } else if (columnsLeft > 0) {
            columnsLeft--;
        } else if (header == 0xFE && in.readableBytes() < 9) {
            if (inRows) {
                finish(ctx, new Answer(true, rows, null));
            } else {
                inRows = true; // the EOF after the column definitions
            }
        } else {
            List<String> row = new ArrayList<>();
            while (in.isReadable()) {
                if (LengthEncoded.isNull(in)) {
                    in.skipBytes(1); // in a text row 0xFB is NULL, not a length prefix
                    row.add(null);
                } else {
                    row.add(LengthEncoded.readString(in, StandardCharsets.UTF_8));
                }
            }
            rows.add(row);
        }
    }

    private void finish(ChannelHandlerContext ctx, Answer answer) {
        answers.add(answer);
        if (answers.size() < statements.size()) {
            columnsLeft = -1;
            inRows = false;
            rows = new ArrayList<>();
            send(ctx);
            return;
        }
        result.trySuccess(List.copyOf(answers));
        ctx.writeAndFlush(PacketWriter.frame(ctx.alloc(), 0, 1, out -> out.writeByte(Command.COM_QUIT.code())))
                .addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        result.tryFailure(new IllegalStateException("server closed the connection during the statement"));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        result.tryFailure(cause);
        ctx.close();
    }
}
