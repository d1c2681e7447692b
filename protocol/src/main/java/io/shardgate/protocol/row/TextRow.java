package io.shardgate.protocol.row;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.packet.ColumnDefinition41;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A text result row (Text Resultset Row, the rows of a COM_QUERY result): one length-encoded string
 * per column, 0xFB for NULL (in a text row 0xFB is NULL, not a length prefix).
 */
public final class TextRow {
    private TextRow() {}

    /**
     * Decodes a row payload into one Java value per column (null for NULL); neither retains nor
     * releases {@code in}.
     */
    public static List<Object> read(ByteBuf in, List<ColumnDefinition41> columns) {
        List<Object> values = new ArrayList<>(columns.size());
        try {
            for (ColumnDefinition41 column : columns) {
                byte[] text = LengthEncoded.readBytes(in);
                values.add(text == null ? null : TextValue.parse(text, column.type(), column.unsigned()));
            }
        } catch (IndexOutOfBoundsException e) {
            throw MalformedPacketException.truncated("text row", e);
        } catch (IllegalArgumentException e) {
            throw new MalformedPacketException("bad text row value: " + e.getMessage(), e);
        }
        if (in.isReadable()) {
            throw new MalformedPacketException("text row has " + in.readableBytes() + " bytes after its last column");
        }
        return Collections.unmodifiableList(values);
    }

    /** Encodes one value per column; neither retains nor releases {@code out}. */
    public static void write(ByteBuf out, List<ColumnDefinition41> columns, List<?> values) {
        if (values.size() != columns.size()) {
            throw new IllegalArgumentException(values.size() + " values for " + columns.size() + " columns");
        }
        for (int i = 0; i < columns.size(); i++) {
            Object value = values.get(i);
            if (value == null) {
                LengthEncoded.writeNull(out);
            } else {
                ColumnDefinition41 c = columns.get(i);
                LengthEncoded.writeBytes(out, TextValue.format(value, c.type(), c.decimals()));
            }
        }
    }
}
