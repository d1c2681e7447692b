package io.shardgate.protocol.row;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.packet.ColumnDefinition41;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A binary result row (Binary Protocol Resultset Row, the rows of a COM_STMT_EXECUTE result):
 * header 0x00, a NULL bitmap of (columns + 7 + 2) / 8 bytes whose first two bits are unused
 * (offset 2), then the non-NULL values in the binary protocol.
 */
public final class BinaryRow {
    public static final int HEADER = 0x00;
    private static final int BITMAP_OFFSET = 2;

    private BinaryRow() {}

    /**
     * Decodes a row payload into one Java value per column (null for NULL); neither retains nor
     * releases {@code in}.
     */
    public static List<Object> read(ByteBuf in, List<ColumnDefinition41> columns) {
        int n = columns.size();
        int bitmapLength = (n + 7 + BITMAP_OFFSET) / 8;
        if (in.readableBytes() < 1 + bitmapLength || in.readUnsignedByte() != HEADER) {
            throw new MalformedPacketException("not a binary row");
        }
        int bitmapStart = in.readerIndex();
        in.skipBytes(bitmapLength);
        List<Object> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int bit = i + BITMAP_OFFSET;
            if ((in.getByte(bitmapStart + (bit >>> 3)) & (1 << (bit & 7))) != 0) {
                values.add(null);
            } else {
                ColumnDefinition41 c = columns.get(i);
                values.add(BinaryValue.read(in, c.type(), c.unsigned()));
            }
        }
        if (in.isReadable()) {
            throw new MalformedPacketException("binary row has " + in.readableBytes() + " bytes after its last column");
        }
        return Collections.unmodifiableList(values);
    }

    /** Encodes one value per column; neither retains nor releases {@code out}. */
    public static void write(ByteBuf out, List<ColumnDefinition41> columns, List<?> values) {
        int n = columns.size();
        if (values.size() != n) {
            throw new IllegalArgumentException(values.size() + " values for " + n + " columns");
        }
        out.writeByte(HEADER);
        byte[] bitmap = new byte[(n + 7 + BITMAP_OFFSET) / 8];
        for (int i = 0; i < n; i++) {
            if (values.get(i) == null) {
                int bit = i + BITMAP_OFFSET;
                bitmap[bit >>> 3] |= (byte) (1 << (bit & 7));
            }
        }
        out.writeBytes(bitmap);
        for (int i = 0; i < n; i++) {
            if (values.get(i) != null) {
                BinaryValue.write(out, values.get(i), columns.get(i).type());
            }
        }
    }
}
