package io.shardgate.benchmarks;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Frame;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ColumnCount;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.packet.EofPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.ColumnFlags;
import io.shardgate.protocol.type.MySqlType;
import io.shardgate.protocol.type.ServerStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * The text result of sysbench's range read {@code SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?}
 * (oltp_read_only's simple_ranges): one CHAR(120) column and {@link #ROWS} rows of sysbench-style
 * values, written with the protocol codecs. No recorded fixture holds a result this long (theirs
 * have a few rows), so the bytes are built the way a MariaDB server frames them.
 */
final class SysbenchRangeResult {
    static final int ROWS = 100;
    private static final int STATUS = ServerStatus.SERVER_STATUS_AUTOCOMMIT;

    private SysbenchRangeResult() {}

    /** Each packet's payload in order; with CLIENT_DEPRECATE_EOF the EOF after the definitions is absent. */
    static List<byte[]> payloads(boolean deprecateEof) {
        Capabilities caps = new Capabilities(
                CapabilityFlags.CLIENT_PROTOCOL_41 | (deprecateEof ? CapabilityFlags.CLIENT_DEPRECATE_EOF : 0));
        List<byte[]> out = new ArrayList<>();
        out.add(payload(b -> new ColumnCount(1).write(b, caps)));
        ColumnDefinition41 c = new ColumnDefinition41(
                "def",
                "sbtest",
                "sbtest1",
                "sbtest1",
                "c",
                "c",
                45,
                480,
                MySqlType.STRING,
                ColumnFlags.NOT_NULL_FLAG,
                0);
        out.add(payload(b -> c.write(b, caps)));
        if (!deprecateEof) {
            out.add(payload(b -> new EofPacket(0, STATUS).write(b)));
        }
        for (int row = 0; row < ROWS; row++) {
            String value = SysbenchText.c(row);
            out.add(payload(b -> LengthEncoded.writeString(b, value, UTF_8)));
        }
        if (deprecateEof) {
            out.add(payload(b -> new OkPacket(OkPacket.EOF_HEADER, 0, 0, STATUS, 0, "", null).write(b, caps)));
        } else {
            out.add(payload(b -> new EofPacket(0, STATUS).write(b)));
        }
        return out;
    }

    /** The whole response as the server sends it: every payload framed, sequence ids from 1. */
    static byte[] bytes(boolean deprecateEof) {
        ByteBuf wire = Unpooled.buffer();
        try {
            int sequenceId = 1;
            for (byte[] payload : payloads(deprecateEof)) {
                Frame.writeHeader(wire, payload.length, sequenceId++ & 0xFF);
                wire.writeBytes(payload);
            }
            return ByteBufUtil.getBytes(wire);
        } finally {
            wire.release();
        }
    }

    private interface PayloadWriter {
        void write(ByteBuf out);
    }

    private static byte[] payload(PayloadWriter writer) {
        ByteBuf buf = Unpooled.buffer();
        try {
            writer.write(buf);
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }
}
