package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Frame;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.packet.EofPacket;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.row.BinaryRow;
import io.shardgate.protocol.row.TextRow;
import io.shardgate.protocol.type.ColumnFlags;
import io.shardgate.protocol.type.MySqlType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/** Builds shard responses with the protocol codecs, as framed pooled buffers the test releases. */
final class ShardResponses {
    static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
    static final int UTF8MB4_GENERAL_CI = 45;
    static final int BINARY = 63;

    private final boolean binary;
    private final boolean deprecateEof;
    private final List<ByteBuf> built = new ArrayList<>();

    ShardResponses(boolean binary, boolean deprecateEof) {
        this.binary = binary;
        this.deprecateEof = deprecateEof;
    }

    static ColumnDefinition41 column(String name, MySqlType type, int charset, long length, int flags, int decimals) {
        return new ColumnDefinition41("def", "db", "t", "t", name, name, charset, length, type, flags, decimals);
    }

    static ColumnDefinition41 bigint(String name) {
        return column(name, MySqlType.LONGLONG, BINARY, 20, ColumnFlags.NOT_NULL_FLAG | ColumnFlags.BINARY_FLAG, 0);
    }

    static ColumnDefinition41 integer(String name) {
        return column(name, MySqlType.LONG, BINARY, 11, ColumnFlags.BINARY_FLAG, 0);
    }

    static ColumnDefinition41 decimal(String name, long length, int decimals) {
        return column(name, MySqlType.NEWDECIMAL, BINARY, length, ColumnFlags.BINARY_FLAG, decimals);
    }

    static ColumnDefinition41 dbl(String name) {
        return column(name, MySqlType.DOUBLE, BINARY, 23, ColumnFlags.BINARY_FLAG, 31);
    }

    static ColumnDefinition41 varchar(String name) {
        return column(name, MySqlType.VAR_STRING, UTF8MB4_GENERAL_CI, 80, 0, 0);
    }

    static ColumnDefinition41 varcharBin(String name) {
        return column(name, MySqlType.VAR_STRING, UTF8MB4_GENERAL_CI, 80, ColumnFlags.BINARY_FLAG, 0);
    }

    /** A hidden column of collation weights (WEIGHT_STRING or the pad): VARBINARY. */
    static ColumnDefinition41 weights(String name) {
        return column(name, MySqlType.VAR_STRING, BINARY, 80, ColumnFlags.BINARY_FLAG, 0);
    }

    /**
     * WEIGHT_STRING(s) under utf8mb4_general_ci for the ASCII letters, digits, space and 'é' the
     * tests use, as MariaDB 11.4 returns it (two bytes per character, the upper-case letter; 'é' weighs
     * as 'E'); null for NULL.
     */
    static byte[] generalCi(String s) {
        if (s == null) {
            return null;
        }
        byte[] w = new byte[2 * s.length()];
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 'é') {
                c = 'E';
            } else if (c > 0x7E) {
                throw new IllegalArgumentException("no known general_ci weight for " + c);
            }
            w[2 * i + 1] = (byte) Character.toUpperCase(c);
        }
        return w;
    }

    /** WEIGHT_STRING(s) under utf8mb4_bin for ASCII: three bytes per character, its code point. */
    static byte[] bin(String s) {
        byte[] w = new byte[3 * s.length()];
        for (int i = 0; i < s.length(); i++) {
            w[3 * i + 2] = (byte) s.charAt(i);
        }
        return w;
    }

    /** The pad column's value: the collation's name, ':', 'P' (PAD SPACE), the weight of two spaces. */
    static byte[] pad(String collation, byte[] twoSpaces) {
        byte[] name = (collation + ":P").getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(name, name.length + twoSpaces.length);
        System.arraycopy(twoSpaces, 0, out, name.length, twoSpaces.length);
        return out;
    }

    static final byte[] GENERAL_CI_PAD = pad("utf8mb4_general_ci", generalCi("  "));

    /**
     * {@code row} with, for each of its string cells at {@code at}, the weight and pad columns a shard
     * sends for a utf8mb4_general_ci value, appended in that order.
     */
    static List<Object> withGeneralCiWeights(List<Object> row, int... at) {
        List<Object> out = new ArrayList<>(row);
        for (int i : at) {
            Object v = row.get(i);
            out.add(v == null ? null : generalCi(new String((byte[]) v, StandardCharsets.UTF_8)));
            out.add(GENERAL_CI_PAD);
        }
        return out;
    }

    /** A row's values as the codecs take them: strings become their UTF-8 bytes. */
    static List<Object> row(Object... values) {
        Object[] v = values.clone();
        for (int i = 0; i < v.length; i++) {
            if (v[i] instanceof String s) {
                v[i] = s.getBytes(StandardCharsets.UTF_8);
            }
        }
        return Arrays.asList(v);
    }

    /** A result set: column count, definitions, EOF unless deprecateEof, rows, terminator. */
    ByteBuf resultSet(List<ColumnDefinition41> columns, List<List<Object>> rows) {
        return resultSet(columns, rows, 0);
    }

    ByteBuf resultSet(List<ColumnDefinition41> columns, List<List<Object>> rows, int warnings) {
        return resultSet(columns, columns, rows, warnings);
    }

    /** A result set with {@code columns}' definitions whose rows are encoded as {@code encodeAs} says. */
    ByteBuf resultSet(
            List<ColumnDefinition41> columns,
            List<ColumnDefinition41> encodeAs,
            List<List<Object>> rows,
            int warnings) {
        return frames(f -> {
            f.accept(p -> LengthEncoded.writeInt(p, columns.size()));
            for (ColumnDefinition41 c : columns) {
                f.accept(p -> c.write(p, Capabilities.NONE));
            }
            if (!deprecateEof) {
                f.accept(p -> new EofPacket(0, 2).write(p));
            }
            for (List<Object> r : rows) {
                f.accept(p -> {
                    if (binary) {
                        BinaryRow.write(p, encodeAs, r);
                    } else {
                        TextRow.write(p, encodeAs, r);
                    }
                });
            }
            f.accept(p -> terminator(p, warnings));
        });
    }

    /** A result set whose rows end in an ERR (the server failed mid-result). */
    ByteBuf resultSetThenErr(List<ColumnDefinition41> columns, List<List<Object>> rows, ErrPacket err) {
        return frames(f -> {
            f.accept(p -> LengthEncoded.writeInt(p, columns.size()));
            for (ColumnDefinition41 c : columns) {
                f.accept(p -> c.write(p, Capabilities.NONE));
            }
            if (!deprecateEof) {
                f.accept(p -> new EofPacket(0, 2).write(p));
            }
            for (List<Object> r : rows) {
                f.accept(p -> TextRow.write(p, columns, r));
            }
            f.accept(err::write);
        });
    }

    ByteBuf ok(long affected, long insertId, int warnings, String info) {
        return frames(f -> f.accept(p -> new OkPacket(0, affected, insertId, 2, warnings, info, null)
                .write(p, new Capabilities(io.shardgate.protocol.type.CapabilityFlags.CLIENT_PROTOCOL_41))));
    }

    ByteBuf err(int code, String state, String message) {
        return frames(f -> f.accept(new ErrPacket(code, state, message)::write));
    }

    /** Every buffer built so far, to release after the test. */
    void releaseAll() {
        built.forEach(ByteBuf::release);
        built.clear();
    }

    private void terminator(ByteBuf p, int warnings) {
        if (deprecateEof) {
            new OkPacket(OkPacket.EOF_HEADER, 0, 0, 2, warnings, "", null)
                    .write(p, new Capabilities(io.shardgate.protocol.type.CapabilityFlags.CLIENT_PROTOCOL_41));
        } else {
            new EofPacket(warnings, 2).write(p);
        }
    }

    private ByteBuf frames(Consumer<Consumer<Consumer<ByteBuf>>> packets) {
        ByteBuf out = ALLOC.buffer();
        built.add(out);
        int[] sequence = {1};
        ByteBuf payload = ALLOC.buffer();
        try {
            packets.accept(writer -> {
                payload.clear();
                writer.accept(payload);
                int length = payload.readableBytes();
                int at = payload.readerIndex();
                int chunk;
                do {
                    chunk = Math.min(Frame.MAX_PAYLOAD, length - (at - payload.readerIndex()));
                    Frame.writeHeader(out, chunk, sequence[0]++ & 0xFF);
                    out.writeBytes(payload, at, chunk);
                    at += chunk;
                } while (chunk == Frame.MAX_PAYLOAD);
            });
        } finally {
            payload.release();
        }
        return out;
    }
}
