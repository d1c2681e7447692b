package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.ServerStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The client's side of the wire as lines a test can compare: {@code "OK affected=2 status=0x0002"},
 * {@code "ERR 1235 (42000): ..."}, {@code "columns: id, c"} (the definitions and their EOF), {@code "row: 1, a"}, {@code "EOF
 * status=0x0002"}. Text result sets with classic EOF packets only. Fails when a response's sequence
 * ids do not count up from 1 (on across the results of one multi-result answer).
 */
final class ClientAnswers {
    private ClientAnswers() {}

    /** {@code firstSequenceId}: of the first packet (a command's answer: 1, the login's OK: after the handshake's). */
    static List<String> describe(byte[] bytes, Capabilities caps, int firstSequenceId) {
        List<String> lines = new ArrayList<>();
        ByteBuf in = Unpooled.wrappedBuffer(bytes);
        int expected = firstSequenceId;
        int columnsLeft = -1; // -1: a response starts; >0: definitions to read; 0: their EOF; -2: rows
        List<String> names = new ArrayList<>();
        while (in.isReadable()) {
            int length = in.readUnsignedMediumLE();
            int sequenceId = in.readUnsignedByte();
            ByteBuf payload = in.readSlice(length);
            if (sequenceId != (expected & 0xFF)) {
                throw new AssertionError(
                        "sequence id " + sequenceId + " where " + expected + " was due, after " + lines);
            }
            expected++;
            int header = payload.getUnsignedByte(payload.readerIndex());
            boolean eof = header == 0xFE && length < 9;
            int status;
            if (columnsLeft == -1) {
                if (header == 0x00) {
                    OkPacket ok = OkPacket.read(payload, caps);
                    lines.add("OK affected=" + ok.affectedRows() + " status=" + hex(ok.statusFlags()));
                    status = ok.statusFlags();
                } else if (header == 0xFF) {
                    ErrPacket err = ErrPacket.read(payload);
                    lines.add("ERR " + err.code() + " (" + err.sqlState() + "): " + err.message());
                    status = 0;
                } else {
                    columnsLeft = (int) lengthEncoded(payload);
                    names.clear();
                    continue;
                }
            } else if (columnsLeft > 0) {
                names.add(ColumnDefinition41.read(payload, caps).name());
                columnsLeft--;
                continue;
            } else if (columnsLeft == 0) {
                lines.add("columns: " + String.join(", ", names));
                columnsLeft = -2;
                continue;
            } else if (eof) {
                status = payload.getUnsignedShortLE(payload.readerIndex() + 3);
                lines.add("EOF status=" + hex(status));
            } else if (header == 0xFF) {
                ErrPacket err = ErrPacket.read(payload);
                lines.add("ERR " + err.code() + " (" + err.sqlState() + "): " + err.message());
                status = 0;
            } else {
                List<String> values = new ArrayList<>();
                while (payload.isReadable()) {
                    if (payload.getUnsignedByte(payload.readerIndex()) == 0xFB) { // NULL in a text row
                        payload.skipBytes(1);
                        values.add("NULL");
                    } else {
                        int n = (int) lengthEncoded(payload);
                        values.add(payload.readCharSequence(n, StandardCharsets.UTF_8)
                                .toString());
                    }
                }
                lines.add("row: " + String.join(", ", values));
                continue;
            }
            columnsLeft = -1;
            if ((status & ServerStatus.SERVER_MORE_RESULTS_EXISTS) == 0) {
                expected = 1;
            }
        }
        return lines;
    }

    private static String hex(int status) {
        return String.format("0x%04x", status);
    }

    private static long lengthEncoded(ByteBuf in) {
        int first = in.readUnsignedByte();
        return switch (first) {
            case 0xFC -> in.readUnsignedShortLE();
            case 0xFD -> in.readUnsignedMediumLE();
            case 0xFE -> in.readLongLE();
            default -> first;
        };
    }
}
