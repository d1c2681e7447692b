package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Frame;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.packet.EofPacket;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.row.BinaryRow;
import io.shardgate.protocol.row.TextRow;
import io.shardgate.protocol.type.CapabilityFlags;
import java.util.ArrayList;
import java.util.List;

/**
 * A merged response decoded with the protocol codecs, checking the framing on the way: sequence
 * ids from 1, one terminator (or an ERR after some rows), nothing after it. Releases the buffer it decodes.
 */
record MergedResponse(
        List<ColumnDefinition41> columns,
        List<List<Object>> rows,
        List<byte[]> rawRows,
        OkPacket ok,
        ErrPacket err,
        int warnings,
        int statusFlags) {

    static MergedResponse decodeAndRelease(ByteBuf framed, boolean binary, boolean deprecateEof) {
        try {
            List<ByteBuf> packets = new ArrayList<>();
            int expected = 1;
            boolean joining = false;
            while (framed.isReadable()) {
                int length = Frame.readLength(framed, framed.readerIndex());
                int seq = Frame.readSequenceId(framed, framed.readerIndex());
                if (seq != (expected++ & 0xFF)) {
                    throw new AssertionError("sequence id " + seq + " where " + (expected - 1) + " was due");
                }
                framed.skipBytes(Frame.HEADER_SIZE);
                byte[] payload = io.netty.buffer.ByteBufUtil.getBytes(framed.readSlice(length));
                if (joining) {
                    ByteBuf last = packets.get(packets.size() - 1);
                    packets.set(
                            packets.size() - 1,
                            Unpooled.wrappedBuffer(io.netty.buffer.ByteBufUtil.getBytes(last), payload));
                } else {
                    packets.add(Unpooled.wrappedBuffer(payload));
                }
                joining = length == Frame.MAX_PAYLOAD;
            }
            Capabilities caps = new Capabilities(CapabilityFlags.CLIENT_PROTOCOL_41);
            ByteBuf first = packets.get(0);
            int header = first.getUnsignedByte(0);
            if (header == ErrPacket.HEADER) {
                expectCount(packets, 1);
                return new MergedResponse(List.of(), List.of(), List.of(), null, ErrPacket.read(first), 0, 0);
            }
            if (header == OkPacket.HEADER) {
                expectCount(packets, 1);
                OkPacket ok = OkPacket.read(first, caps);
                return new MergedResponse(List.of(), List.of(), List.of(), ok, null, ok.warnings(), ok.statusFlags());
            }
            int n = (int) LengthEncoded.readInt(first);
            List<ColumnDefinition41> columns = new ArrayList<>();
            int i = 1;
            for (; i <= n; i++) {
                columns.add(ColumnDefinition41.read(packets.get(i), Capabilities.NONE));
            }
            if (!deprecateEof) {
                EofPacket.read(packets.get(i++));
            }
            List<List<Object>> rows = new ArrayList<>();
            List<byte[]> raw = new ArrayList<>();
            for (; i < packets.size() - 1; i++) {
                ByteBuf p = packets.get(i);
                raw.add(io.netty.buffer.ByteBufUtil.getBytes(p));
                rows.add(binary ? BinaryRow.read(p, columns) : TextRow.read(p, columns));
            }
            ByteBuf last = packets.get(packets.size() - 1);
            if (ErrPacket.isErr(last)) { // the statement failed while its rows were sent
                return new MergedResponse(columns, rows, raw, null, ErrPacket.read(last), 0, 0);
            }
            if (deprecateEof) {
                OkPacket end = OkPacket.read(last, caps);
                if (end.header() != OkPacket.EOF_HEADER) {
                    throw new AssertionError("the result set does not end with an OK packet of header 0xFE");
                }
                return new MergedResponse(columns, rows, raw, null, null, end.warnings(), end.statusFlags());
            }
            EofPacket end = EofPacket.read(last);
            return new MergedResponse(columns, rows, raw, null, null, end.warnings(), end.statusFlags());
        } finally {
            framed.release();
        }
    }

    private static void expectCount(List<ByteBuf> packets, int n) {
        if (packets.size() != n) {
            throw new AssertionError(packets.size() + " packets where " + n + " were due");
        }
    }
}
