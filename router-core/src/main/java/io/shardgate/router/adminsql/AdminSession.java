package io.shardgate.router.adminsql;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.net.PacketWriter;
import io.shardgate.router.net.TextResultSet;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logged-in connection to the SQL admin endpoint: COM_QUERY runs an admin statement ({@link
 * AdminCatalog}) and answers rows, OK or ERR; COM_PING, COM_INIT_DB and COM_QUIT are answered as a
 * server would; other commands get ERR 1047.
 *
 * <p>Statements run on the admin executor, not the event loop (publishing waits for ZooKeeper);
 * reading pauses until the answer is written, so a connection has one statement at a time. The
 * packet is released on the event loop once its SQL text is copied out.
 */
final class AdminSession extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(AdminSession.class);
    private static final int STATUS = ServerStatus.SERVER_STATUS_AUTOCOMMIT;

    private final AdminCatalog catalog;
    private final Executor executor;
    private final String user;
    private final Capabilities capabilities;
    private final int okSequenceId;

    AdminSession(AdminCatalog catalog, Executor executor, String user, Capabilities capabilities, int okSequenceId) {
        this.catalog = catalog;
        this.executor = executor;
        this.user = user;
        this.capabilities = capabilities;
        this.okSequenceId = okSequenceId;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ok(ctx, okSequenceId, 0, "");
        ctx.channel().config().setAutoRead(true);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Packet packet = (Packet) msg;
        Command command;
        String text;
        try {
            ByteBuf payload = packet.payload();
            command = payload.isReadable() ? Command.of(payload.getUnsignedByte(payload.readerIndex())) : null;
            text = payload.readableBytes() > 1
                    ? payload.toString(payload.readerIndex() + 1, payload.readableBytes() - 1, StandardCharsets.UTF_8)
                    : "";
        } finally {
            packet.release();
        }
        if (command == null) {
            error(ctx, 1047, "Unknown command");
            return;
        }
        switch (command) {
            case COM_QUERY -> query(ctx, text);
            case COM_PING, COM_INIT_DB, COM_RESET_CONNECTION -> ok(ctx, 1, 0, "");
            case COM_QUIT -> ctx.close();
            default -> error(ctx, 1047, command.name() + " is not supported by the admin endpoint");
        }
    }

    private void query(ChannelHandlerContext ctx, String sql) {
        ctx.channel().config().setAutoRead(false);
        try {
            executor.execute(() -> {
                AdminResult result;
                try {
                    result = catalog.execute(sql, user);
                } catch (AdminSqlException e) {
                    ctx.executor().execute(() -> answered(ctx, () -> error(ctx, e.code(), e.getMessage())));
                    return;
                } catch (RuntimeException e) {
                    log.warn("admin statement failed: {}", sql, e);
                    ctx.executor().execute(() -> answered(ctx, () -> error(ctx, 1105, "internal error: " + e)));
                    return;
                }
                ctx.executor().execute(() -> answered(ctx, () -> write(ctx, result)));
            });
        } catch (RejectedExecutionException e) {
            answered(ctx, () -> error(ctx, 1053, "Server shutdown in progress"));
        }
    }

    private void answered(ChannelHandlerContext ctx, Runnable answer) {
        if (ctx.channel().isActive()) {
            try {
                answer.run();
            } catch (RuntimeException e) {
                log.warn("admin answer failed", e);
                error(ctx, 1105, "internal error: " + e);
            }
            ctx.channel().config().setAutoRead(true);
        }
    }

    private void write(ChannelHandlerContext ctx, AdminResult result) {
        if (result instanceof AdminResult.Rows rows) {
            ctx.writeAndFlush(
                    TextResultSet.write(ctx.alloc(), capabilities, rows.columns(), rows.rows(), STATUS),
                    ctx.voidPromise());
        } else {
            AdminResult.Done done = (AdminResult.Done) result;
            ok(ctx, 1, done.affectedRows(), done.info());
        }
    }

    private void ok(ChannelHandlerContext ctx, int sequenceId, long affected, String info) {
        OkPacket ok = new OkPacket(OkPacket.HEADER, affected, 0, STATUS, 0, info, null);
        ctx.writeAndFlush(
                PacketWriter.frame(ctx.alloc(), sequenceId, 64 + info.length() * 3, out -> ok.write(out, capabilities)),
                ctx.voidPromise());
    }

    private void error(ChannelHandlerContext ctx, int code, String message) {
        ErrPacket err = new ErrPacket(code, sqlState(code), message);
        ctx.writeAndFlush(PacketWriter.frame(ctx.alloc(), 1, 64 + message.length() * 3, err::write), ctx.voidPromise());
    }

    /** The SQL states MySQL sends with these codes. */
    private static String sqlState(int code) {
        return switch (code) {
            case 1064, 1047 -> "42000";
            case 1146 -> "42S02";
            case 1054 -> "42S22";
            case 1136 -> "21S01";
            case 1053 -> "08S01";
            default -> "HY000";
        };
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("admin connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
