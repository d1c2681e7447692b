package io.shardgate.it.merge;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Frame;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.row.BinaryRow;
import io.shardgate.protocol.row.MySqlDateTime;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A response decoded for comparison: the column metadata a client sees and each row as one string
 * per cell (text rows: the exact text the server sent; binary rows: the decoded value), or the ERR.
 * Neither retains nor releases the buffer it reads.
 */
record DecodedResponse(List<String> columns, List<List<String>> rows, List<Folding> folding, String err) {
    /** How strings equal under a column's collation differ: not at all, by trailing spaces, or also by case and accents. */
    enum Folding {
        NONE,
        TRAILING_SPACES,
        CASE_ACCENTS_AND_TRAILING_SPACES
    }

    static DecodedResponse decode(ByteBuf framed, boolean binary, boolean deprecateEof) {
        List<ByteBuf> packets = new ArrayList<>();
        ByteBuf in = framed.duplicate();
        int expectedSequence = 1;
        while (in.isReadable()) {
            int length = Frame.readLength(in, in.readerIndex());
            int sequence = Frame.readSequenceId(in, in.readerIndex());
            if (sequence != (expectedSequence++ & 0xFF)) {
                throw new AssertionError("sequence id " + sequence + " where " + (expectedSequence - 1) + " was due");
            }
            in.skipBytes(Frame.HEADER_SIZE);
            packets.add(in.readSlice(length));
        }
        ByteBuf first = packets.get(0);
        int header = first.getUnsignedByte(first.readerIndex());
        if (header == ErrPacket.HEADER) {
            ErrPacket err = ErrPacket.read(first.duplicate());
            return new DecodedResponse(List.of(), List.of(), List.of(), err.code() + " " + err.message());
        }
        if (header == 0x00) {
            return new DecodedResponse(List.of(), List.of(), List.of(), null);
        }
        int n = (int) LengthEncoded.readInt(first.duplicate());
        List<ColumnDefinition41> defs = new ArrayList<>();
        List<String> columns = new ArrayList<>();
        List<Folding> folding = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            ColumnDefinition41 c = ColumnDefinition41.read(packets.get(i).duplicate(), Capabilities.NONE);
            defs.add(c);
            columns.add(c.name() + " " + c.type() + " len=" + c.columnLength() + " dec=" + c.decimals() + " flags="
                    + c.flags() + " charset=" + c.characterSet());
            folding.add(
                    c.characterSet() == 63
                            ? Folding.NONE
                            : (c.flags() & 128) != 0
                                    ? Folding.TRAILING_SPACES
                                    : Folding.CASE_ACCENTS_AND_TRAILING_SPACES);
        }
        int firstRow = n + 1 + (deprecateEof ? 0 : 1);
        List<List<String>> rows = new ArrayList<>();
        for (int i = firstRow; i < packets.size() - 1; i++) {
            rows.add(
                    binary
                            ? binaryCells(packets.get(i).duplicate(), defs)
                            : textCells(packets.get(i).duplicate(), n));
        }
        return new DecodedResponse(columns, rows, folding, null);
    }

    private static List<String> textCells(ByteBuf row, int n) {
        List<String> cells = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (LengthEncoded.isNull(row)) {
                row.skipBytes(1);
                cells.add(null);
            } else {
                cells.add(LengthEncoded.readString(row, UTF_8));
            }
        }
        if (row.isReadable()) {
            throw new AssertionError("text row longer than " + n + " cells");
        }
        return cells;
    }

    private static List<String> binaryCells(ByteBuf row, List<ColumnDefinition41> defs) {
        List<String> cells = new ArrayList<>();
        for (Object v : BinaryRow.read(row, defs)) {
            cells.add(
                    v == null
                            ? null
                            : v instanceof byte[] b
                                    ? new String(b, UTF_8)
                                    : v instanceof BigDecimal d
                                            ? d.toPlainString()
                                            : v instanceof MySqlDateTime t ? t.toString() : v.toString());
        }
        return cells;
    }

    @Override
    public String toString() {
        if (err != null) {
            return "ERR " + err;
        }
        StringBuilder b = new StringBuilder(String.join(" | ", columns));
        rows.stream().limit(40).forEach(r -> b.append("\n  ").append(Arrays.toString(r.toArray())));
        if (rows.size() > 40) {
            b.append("\n  ... ").append(rows.size()).append(" rows");
        }
        return b.toString();
    }
}
