package io.shardgate.router.health;

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
import java.util.Locale;

/**
 * The conversation of one health check on a freshly logged-in monitor connection: COM_PING,
 * {@code SELECT @@read_only}, {@code SHOW REPLICA STATUS} (MariaDB 10.5+, MySQL 8.0.22+; {@code
 * SHOW SLAVE STATUS} when the server does not know it), then COM_QUIT, so the server counts a
 * clean disconnect — MariaDB blocks a host after {@code max_connect_errors} aborted connects.
 *
 * <p>Sits behind the login's frame decoder, so it reads whole {@link Packet}s (released by
 * {@link SimpleChannelInboundHandler}). Connections are opened without CLIENT_DEPRECATE_EOF: a
 * result set ends with an EOF packet.
 */
final class HealthCheck extends SimpleChannelInboundHandler<Packet> {
    private enum Step {
        PING,
        READ_ONLY,
        REPLICA_STATUS,
        SLAVE_STATUS
    }

    private final Promise<CheckResult> result;
    private Step step = Step.PING;
    /** The server's {@code @@global.sql_mode}, which new sessions (and pooled connections) start with. */
    private String globalSqlMode;

    private boolean readOnly;
    /** Where the response in progress stands: -1 before its first packet, then columns still to read. */
    private int columnsLeft = -1;

    private boolean inRows;
    private final List<String> columns = new ArrayList<>();
    private final List<List<String>> rows = new ArrayList<>();

    HealthCheck(Promise<CheckResult> result) {
        this.result = result;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(PacketWriter.frame(ctx.alloc(), 0, 1, out -> out.writeByte(Command.COM_PING.code())));
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Packet packet) {
        ByteBuf in = packet.payload();
        int header = in.getUnsignedByte(in.readerIndex());
        if (columnsLeft < 0) {
            if (header == ErrPacket.HEADER) {
                error(ctx, ErrPacket.read(in));
            } else if (header == 0x00) {
                responseDone(ctx);
            } else {
                columnsLeft = (int) LengthEncoded.readInt(in);
            }
        } else if (columnsLeft > 0) {
            for (int i = 0; i < 4; i++) {
                LengthEncoded.skip(in); // catalog, schema, table, org_table
            }
            columns.add(LengthEncoded.readString(in, StandardCharsets.UTF_8));
            columnsLeft--;
        } else if (header == 0xFE && in.readableBytes() < 9) {
            if (inRows) {
                responseDone(ctx);
            } else {
                inRows = true; // the EOF after the column definitions
            }
        } else if (header == ErrPacket.HEADER) {
            error(ctx, ErrPacket.read(in));
        } else {
            List<String> row = new ArrayList<>(columns.size());
            while (in.isReadable()) {
                row.add(LengthEncoded.isNull(in) ? skipNull(in) : LengthEncoded.readString(in, StandardCharsets.UTF_8));
            }
            rows.add(row);
        }
    }

    private static String skipNull(ByteBuf in) {
        in.skipBytes(1);
        return null;
    }

    private void error(ChannelHandlerContext ctx, ErrPacket err) {
        if (step == Step.REPLICA_STATUS) {
            next(ctx, Step.SLAVE_STATUS, "SHOW SLAVE STATUS"); // older servers
            return;
        }
        if (step == Step.SLAVE_STATUS) {
            // e.g. the account lacks REPLICATION CLIENT / SLAVE MONITOR: alive, lag unknown
            finish(ctx, new CheckResult(readOnly, null, globalSqlMode), null);
            return;
        }
        finish(ctx, null, step + ": " + err.code() + " " + err.message());
    }

    private void responseDone(ChannelHandlerContext ctx) {
        switch (step) {
            case PING -> next(ctx, Step.READ_ONLY, "SELECT @@read_only, @@global.sql_mode");
            case READ_ONLY -> {
                readOnly = !rows.isEmpty() && "1".equals(rows.get(0).get(0));
                globalSqlMode =
                        !rows.isEmpty() && rows.get(0).size() > 1 ? rows.get(0).get(1) : null;
                next(ctx, Step.REPLICA_STATUS, "SHOW REPLICA STATUS");
            }
            case REPLICA_STATUS, SLAVE_STATUS -> finish(ctx, new CheckResult(readOnly, lag(), globalSqlMode), null);
        }
    }

    /** Seconds behind the primary (the largest over all replication channels); null: not a replica. */
    private Long lag() {
        if (rows.isEmpty()) {
            return null;
        }
        int at = -1;
        for (int i = 0; i < columns.size(); i++) {
            String name = columns.get(i).toLowerCase(Locale.ROOT);
            if (name.equals("seconds_behind_master") || name.equals("seconds_behind_source")) {
                at = i;
            }
        }
        if (at < 0) {
            return null;
        }
        long worst = 0;
        for (List<String> row : rows) {
            String value = at < row.size() ? row.get(at) : null;
            if (value == null) {
                return CheckResult.REPLICATION_STOPPED; // NULL: the replication threads are not running
            }
            worst = Math.max(worst, Long.parseLong(value));
        }
        return worst;
    }

    private void next(ChannelHandlerContext ctx, Step nextStep, String sql) {
        step = nextStep;
        columnsLeft = -1;
        inRows = false;
        columns.clear();
        rows.clear();
        ctx.writeAndFlush(PacketWriter.frame(
                ctx.alloc(),
                0,
                1 + sql.length(),
                out -> out.writeByte(Command.COM_QUERY.code()).writeCharSequence(sql, StandardCharsets.UTF_8)));
    }

    private void finish(ChannelHandlerContext ctx, CheckResult ok, String failure) {
        if (ok != null) {
            result.trySuccess(ok);
        } else {
            result.tryFailure(new IllegalStateException(failure));
        }
        ctx.writeAndFlush(PacketWriter.frame(ctx.alloc(), 0, 1, out -> out.writeByte(Command.COM_QUIT.code())))
                .addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        result.tryFailure(new IllegalStateException("server closed the connection during the check"));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        result.tryFailure(cause);
        ctx.close();
    }
}
