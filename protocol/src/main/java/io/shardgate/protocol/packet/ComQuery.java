package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.BinaryValueLength;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Command;
import java.nio.charset.Charset;

/**
 * COM_QUERY (client to server): 0x03, then with CLIENT_QUERY_ATTRIBUTES the parameter count, the
 * parameter set count (always 1) and, when there are attributes, null bitmap, new-params-bound
 * flag, types with names and binary values; then the statement text string&lt;EOF&gt;.
 *
 * @param parameterCount number of query attributes (0 without CLIENT_QUERY_ATTRIBUTES)
 * @param rawAttributes the attribute bytes after the parameter set count, kept undecoded; empty when
 *     there are none
 */
public record ComQuery(int parameterCount, byte[] rawAttributes, String sql) {
    private static final byte[] NONE = new byte[0];

    /** A query without attributes. */
    public static ComQuery of(String sql) {
        return new ComQuery(0, NONE, sql);
    }

    /** Reads a payload positioned at the 0x03 byte; neither retains nor releases {@code in}. */
    public static ComQuery read(ByteBuf in, Capabilities caps) {
        int start = in.readerIndex();
        int sqlStart = sqlOffset(in, caps);
        int count = 0;
        byte[] raw = NONE;
        if (caps.has(CapabilityFlags.CLIENT_QUERY_ATTRIBUTES)) {
            ByteBuf header = in.slice(start + 1, sqlStart - start - 1);
            count = (int) LengthEncoded.readInt(header);
            LengthEncoded.readInt(header);
            raw = new byte[header.readableBytes()];
            header.readBytes(raw);
        }
        String sql = in.toString(sqlStart, in.writerIndex() - sqlStart, UTF_8);
        in.readerIndex(in.writerIndex());
        return new ComQuery(count, raw, sql);
    }

    /**
     * The statement text of a COM_QUERY payload without building a record (the hot path); does not
     * move the reader index, neither retains nor releases {@code payload}.
     */
    public static String readSql(ByteBuf payload, Capabilities caps, Charset charset) {
        int sqlStart = sqlOffset(payload, caps);
        return payload.toString(sqlStart, payload.writerIndex() - sqlStart, charset);
    }

    /**
     * The index in {@code payload} where the statement text starts, skipping the command byte and any
     * query attributes; does not move the reader index, neither retains nor releases.
     */
    public static int sqlOffset(ByteBuf payload, Capabilities caps) {
        int start = payload.readerIndex();
        if (!payload.isReadable() || payload.getUnsignedByte(start) != Command.COM_QUERY.code()) {
            throw new MalformedPacketException("not a COM_QUERY");
        }
        if (!caps.has(CapabilityFlags.CLIENT_QUERY_ATTRIBUTES)) {
            return start + 1;
        }
        ByteBuf in = payload.duplicate().readerIndex(start + 1);
        try {
            long count = LengthEncoded.readInt(in);
            LengthEncoded.readInt(in); // parameter set count, always 1
            if (count > 0) {
                if (count > in.readableBytes()) {
                    throw new MalformedPacketException("query attribute count " + count + " exceeds the packet");
                }
                int n = (int) count;
                byte[] nullBitmap = new byte[(n + 7) / 8];
                in.readBytes(nullBitmap);
                if (in.readByte() != 1) {
                    throw new MalformedPacketException("query attributes without types");
                }
                ParameterType[] types = new ParameterType[n];
                for (int i = 0; i < n; i++) {
                    types[i] = ParameterType.read(in);
                    LengthEncoded.skip(in); // name
                }
                for (int i = 0; i < n; i++) {
                    if ((nullBitmap[i >>> 3] & (1 << (i & 7))) == 0) {
                        in.skipBytes(BinaryValueLength.at(in, in.readerIndex(), types[i].type()));
                    }
                }
            }
            return in.readerIndex();
        } catch (IndexOutOfBoundsException e) {
            throw MalformedPacketException.truncated("COM_QUERY attributes", e);
        }
    }

    /** Writes the payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out, Capabilities caps) {
        out.writeByte(Command.COM_QUERY.code());
        if (caps.has(CapabilityFlags.CLIENT_QUERY_ATTRIBUTES)) {
            LengthEncoded.writeInt(out, parameterCount);
            LengthEncoded.writeInt(out, 1);
            out.writeBytes(rawAttributes);
        }
        out.writeCharSequence(sql, UTF_8);
    }
}
