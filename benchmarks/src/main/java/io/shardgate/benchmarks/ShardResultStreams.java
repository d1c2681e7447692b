package io.shardgate.benchmarks;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Frame;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.row.BinaryRow;
import io.shardgate.protocol.row.TextRow;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.ColumnFlags;
import io.shardgate.protocol.type.MySqlType;
import io.shardgate.protocol.type.ServerStatus;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Four shards' responses to the two statement shapes a multi-shard read merges, built with the
 * protocol codecs as MariaDB frames them (with CLIENT_DEPRECATE_EOF: an OK packet ends the rows), in
 * the text or the binary protocol:
 *
 * <ul>
 *   <li>{@link #sortedRows}: {@code SELECT id, k, c FROM sbtest1 WHERE ... ORDER BY k, id}, each
 *       shard's rows sorted by (k, id), keys drawn uniformly so the shards' rows interleave;
 *   <li>{@link #groupedRows}: {@code SELECT k % 1000 AS g, COUNT(*), SUM(k), MAX(c) ... GROUP BY g},
 *       each shard's partial groups (every group on every shard, as when the grouping key is not the
 *       sharding key).
 * </ul>
 *
 * No recorded fixture holds four shards' results of this size, so they are built here.
 */
final class ShardResultStreams {
    static final int SHARDS = 4;
    static final int ROWS_PER_SHARD = 1000;
    private static final int STATUS = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private static final int UTF8MB4 = 45;
    private static final int BINARY_CHARSET = 63;
    private static final Capabilities CAPS =
            new Capabilities(CapabilityFlags.CLIENT_PROTOCOL_41 | CapabilityFlags.CLIENT_DEPRECATE_EOF);

    private ShardResultStreams() {}

    static List<ColumnDefinition41> sortedColumns() {
        return List.of(
                column("id", MySqlType.LONG, BINARY_CHARSET, 11, ColumnFlags.NOT_NULL_FLAG | ColumnFlags.BINARY_FLAG),
                column("k", MySqlType.LONG, BINARY_CHARSET, 11, ColumnFlags.NOT_NULL_FLAG | ColumnFlags.BINARY_FLAG),
                column("c", MySqlType.STRING, UTF8MB4, 480, ColumnFlags.NOT_NULL_FLAG));
    }

    static List<ColumnDefinition41> groupedColumns() {
        return List.of(
                column("g", MySqlType.LONGLONG, BINARY_CHARSET, 21, ColumnFlags.BINARY_FLAG),
                column("COUNT(*)", MySqlType.LONGLONG, BINARY_CHARSET, 21, ColumnFlags.NOT_NULL_FLAG),
                new ColumnDefinition41(
                        "def",
                        "sbtest",
                        "",
                        "",
                        "SUM(k)",
                        "SUM(k)",
                        BINARY_CHARSET,
                        33,
                        MySqlType.NEWDECIMAL,
                        ColumnFlags.BINARY_FLAG,
                        0),
                // binary (as MAX(c) over a BINARY/VARBINARY column): a non-binary string compared by the
                // merge needs the collation-weight columns the planner adds, which these streams do not
                // carry; bytes compare without them
                column("MAX(c)", MySqlType.STRING, BINARY_CHARSET, 120, ColumnFlags.BINARY_FLAG));
    }

    /** Each shard's whole response to the ORDER BY statement, as bytes on the wire. */
    static List<byte[]> sortedRows(boolean binary) {
        List<byte[]> out = new ArrayList<>();
        Random random = new Random(42);
        for (int s = 0; s < SHARDS; s++) {
            List<List<?>> rows = new ArrayList<>();
            long[] keys = new long[ROWS_PER_SHARD];
            for (int i = 0; i < ROWS_PER_SHARD; i++) {
                keys[i] = random.nextInt(100_000);
            }
            java.util.Arrays.sort(keys);
            for (int i = 0; i < ROWS_PER_SHARD; i++) {
                long id = (long) s * ROWS_PER_SHARD + i + 1;
                rows.add(List.of(id, keys[i], SysbenchText.c(id).getBytes(UTF_8)));
            }
            out.add(response(sortedColumns(), rows, binary));
        }
        return out;
    }

    /** Each shard's whole response to the GROUP BY statement: one partial row per group, by g. */
    static List<byte[]> groupedRows(boolean binary) {
        List<byte[]> out = new ArrayList<>();
        Random random = new Random(43);
        for (int s = 0; s < SHARDS; s++) {
            List<List<?>> rows = new ArrayList<>();
            for (long g = 0; g < ROWS_PER_SHARD; g++) {
                long count = 1 + random.nextInt(200);
                rows.add(List.of(
                        g,
                        count,
                        BigDecimal.valueOf(count * random.nextInt(100_000)),
                        SysbenchText.c(s * 100_000L + g).getBytes(UTF_8)));
            }
            out.add(response(groupedColumns(), rows, binary));
        }
        return out;
    }

    private static ColumnDefinition41 column(String name, MySqlType type, int charset, long length, int flags) {
        return new ColumnDefinition41(
                "def", "sbtest", "sbtest1", "sbtest1", name, name, charset, length, type, flags, 0);
    }

    private static byte[] response(List<ColumnDefinition41> columns, List<List<?>> rows, boolean binary) {
        ByteBuf wire = Unpooled.buffer();
        ByteBuf payload = Unpooled.buffer();
        try {
            int sequenceId = 1;
            payload.clear();
            LengthEncoded.writeInt(payload, columns.size());
            sequenceId = frame(wire, payload, sequenceId);
            for (ColumnDefinition41 c : columns) {
                payload.clear();
                c.write(payload, CAPS);
                sequenceId = frame(wire, payload, sequenceId);
            }
            for (List<?> row : rows) {
                payload.clear();
                if (binary) {
                    BinaryRow.write(payload, columns, row);
                } else {
                    TextRow.write(payload, columns, row);
                }
                sequenceId = frame(wire, payload, sequenceId);
            }
            payload.clear();
            new OkPacket(OkPacket.EOF_HEADER, 0, 0, STATUS, 0, "", null).write(payload, CAPS);
            frame(wire, payload, sequenceId);
            return ByteBufUtil.getBytes(wire);
        } finally {
            wire.release();
            payload.release();
        }
    }

    private static int frame(ByteBuf wire, ByteBuf payload, int sequenceId) {
        if (payload.readableBytes() >= Frame.MAX_PAYLOAD) {
            throw new IllegalStateException("a benchmark row needs no multi-packet framing");
        }
        Frame.writeHeader(wire, payload.readableBytes(), sequenceId & 0xFF);
        wire.writeBytes(payload);
        return sequenceId + 1;
    }
}
