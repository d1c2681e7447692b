package io.shardgate.router.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Frame;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.packet.EofPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.row.TextRow;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.MySqlType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A small text-protocol result set the router answers itself (EXPLAIN SHARDGATE, admin views):
 * VARCHAR or BIGINT columns, framed as a server sends them, sequence ids from 1.
 */
public final class TextResultSet {
    private TextResultSet() {}

    /**
     * A column of the answer: its name, whether it holds integers (else text), and the type and
     * display length its definition gives.
     */
    public record Column(String name, boolean integer, MySqlType type, int length) {
        public Column(String name, boolean integer) {
            this(name, integer, integer ? MySqlType.LONGLONG : MySqlType.VAR_STRING, integer ? 20 : 4096);
        }

        public static Column text(String name) {
            return new Column(name, false);
        }

        public static Column integer(String name) {
            return new Column(name, true);
        }

        /** A comparison's result, 0 or 1, typed as MySQL types it: INT(1). */
        public static Column truth(String name) {
            return new Column(name, true, MySqlType.LONG, 1);
        }

        /** COUNT(*)'s result, typed as MySQL types it: BIGINT(21). */
        public static Column count(String name) {
            return new Column(name, true, MySqlType.LONGLONG, 21);
        }
    }

    /** The framed response; the caller owns it. Values are Strings, Longs or null. */
    public static ByteBuf write(
            ByteBufAllocator alloc,
            Capabilities client,
            List<Column> columns,
            List<List<Object>> rows,
            int statusFlags) {
        List<ColumnDefinition41> definitions = new ArrayList<>(columns.size());
        for (Column c : columns) {
            definitions.add(new ColumnDefinition41(
                    "def",
                    "",
                    "",
                    "",
                    c.name(),
                    c.name(),
                    c.integer() ? Collations.BINARY : Collations.UTF8MB4_GENERAL_CI,
                    c.length(),
                    c.type(),
                    0,
                    0));
        }
        boolean deprecateEof = (client.flags() & CapabilityFlags.CLIENT_DEPRECATE_EOF) != 0;
        ByteBuf out = alloc.ioBuffer(256);
        try {
            int[] sequence = {1};
            frame(out, sequence, p -> LengthEncoded.writeInt(p, definitions.size()));
            for (ColumnDefinition41 d : definitions) {
                frame(out, sequence, p -> d.write(p, client));
            }
            if (!deprecateEof) {
                frame(out, sequence, p -> new EofPacket(0, statusFlags).write(p));
            }
            for (List<Object> row : rows) {
                List<Object> encoded = new ArrayList<>(row.size());
                for (Object value : row) {
                    encoded.add(value instanceof String text ? text.getBytes(StandardCharsets.UTF_8) : value);
                }
                frame(out, sequence, p -> TextRow.write(p, definitions, encoded));
            }
            if (deprecateEof) {
                frame(
                        out,
                        sequence,
                        p -> new OkPacket(OkPacket.EOF_HEADER, 0, 0, statusFlags, 0, "", null).write(p, client));
            } else {
                frame(out, sequence, p -> new EofPacket(0, statusFlags).write(p));
            }
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }

    private static void frame(ByteBuf out, int[] sequence, Consumer<ByteBuf> payload) {
        int start = out.writerIndex();
        out.writeZero(Frame.HEADER_SIZE); // grows the buffer when needed; setting writerIndex would not
        payload.accept(out);
        int length = out.writerIndex() - start - Frame.HEADER_SIZE;
        if (length >= Frame.MAX_PAYLOAD) {
            throw new IllegalArgumentException("generated packet of " + length + " bytes needs splitting");
        }
        out.setMediumLE(start, length);
        out.setByte(start + 3, sequence[0]++);
    }
}
