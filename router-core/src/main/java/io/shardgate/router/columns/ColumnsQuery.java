package io.shardgate.router.columns;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.Promise;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.net.PacketWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One text query on a freshly logged-in connection of schema tracking: sends the SELECT, collects
 * its rows as strings (NULL as null), then COM_QUIT so the server counts a clean disconnect.
 *
 * <p>Sits behind the login's frame decoder, so it reads whole {@link Packet}s (released by {@link
 * SimpleChannelInboundHandler}). The connection is opened without CLIENT_DEPRECATE_EOF: the column
 * definitions and the rows each end with an EOF packet.
 */
final class ColumnsQuery extends SimpleChannelInboundHandler<Packet> {
    private final String sql;
    private final Promise<List<List<String>>> result;
    /** -1 before the column count, then column definitions still to read. */
    private int columnsLeft = -1;

    private boolean inRows;
    private final List<List<String>> rows = new ArrayList<>();

    ColumnsQuery(String sql, Promise<List<List<String>>> result) {
        this.sql = sql;
        this.result = result;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
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
            ErrPacket err = ErrPacket.read(in);
            finish(ctx, "ERROR " + err.code() + ": " + err.message());
        } else if (columnsLeft < 0) {
            if (header == 0x00) {
                finish(ctx, "the query returned no result set");
            } else {
                columnsLeft = (int) LengthEncoded.readInt(in);
            }
        } else if (columnsLeft > 0) {
            columnsLeft--;
        } else if (header == 0xFE && in.readableBytes() < 9) {
            if (inRows) {
                finish(ctx, null);
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

    private void finish(ChannelHandlerContext ctx, String failure) {
        if (failure == null) {
            result.trySuccess(rows);
        } else {
            result.tryFailure(new IllegalStateException(failure));
        }
        ctx.writeAndFlush(PacketWriter.frame(ctx.alloc(), 0, 1, out -> out.writeByte(Command.COM_QUIT.code())))
                .addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        result.tryFailure(new IllegalStateException("server closed the connection during the query"));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        result.tryFailure(cause);
        ctx.close();
    }
}
