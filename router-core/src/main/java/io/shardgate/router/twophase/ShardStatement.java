package io.shardgate.router.twophase;

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
 * One statement of the resolver (XA RECOVER, XA COMMIT, XA ROLLBACK) on a freshly logged-in
 * shard connection: the rows as strings, or none for an OK, or the server's ERR; then COM_QUIT.
 * The connection is opened without CLIENT_DEPRECATE_EOF, so column definitions and rows each end
 * with an EOF packet. Sits behind the login's frame decoder ({@link Packet}s released by {@link
 * SimpleChannelInboundHandler}).
 */
final class ShardStatement extends SimpleChannelInboundHandler<Packet> {
    /** The answer: {@code rows} (empty for an OK) or {@code error}. */
    record Answer(List<List<String>> rows, ErrPacket error) {}

    private final String sql;
    private final Promise<Answer> result;
    /** -1 before the column count, then column definitions still to read. */
    private int columnsLeft = -1;

    private boolean inRows;
    private final List<List<String>> rows = new ArrayList<>();

    ShardStatement(String sql, Promise<Answer> result) {
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
            finish(ctx, new Answer(List.of(), ErrPacket.read(in)));
        } else if (columnsLeft < 0) {
            if (header == 0x00) {
                finish(ctx, new Answer(List.of(), null));
            } else {
                columnsLeft = (int) LengthEncoded.readInt(in);
            }
        } else if (columnsLeft > 0) {
            columnsLeft--;
        } else if (header == 0xFE && in.readableBytes() < 9) {
            if (inRows) {
                finish(ctx, new Answer(rows, null));
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
        result.trySuccess(answer);
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
