package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.ErrorCode;

/**
 * ERR_Packet (server to client): 0xFF, error code int&lt;2&gt;, ['#', SQL state string[5]] (with
 * CLIENT_PROTOCOL_41; errors sent before the handshake carry neither), message string&lt;EOF&gt;.
 */
public record ErrPacket(int code, String sqlState, String message) {
    public static final int HEADER = 0xFF;
    /** The SQL state reported for errors that carry none. */
    public static final String DEFAULT_SQL_STATE = "HY000";

    /** The error {@code error} with its message template filled with {@code args}. */
    public static ErrPacket of(ErrorCode error, Object... args) {
        return new ErrPacket(error.code(), error.sqlState(), error.format(args));
    }

    /** Whether a payload is an ERR_Packet. */
    public static boolean isErr(ByteBuf payload) {
        return payload.isReadable() && payload.getUnsignedByte(payload.readerIndex()) == HEADER;
    }

    /** Reads a payload positioned at the header, with or without SQL state; neither retains nor releases. */
    public static ErrPacket read(ByteBuf in) {
        try {
            int header = in.readUnsignedByte();
            if (header != HEADER) {
                throw new MalformedPacketException("not an ERR_Packet: 0x" + Integer.toHexString(header));
            }
            int code = in.readUnsignedShortLE();
            String state = DEFAULT_SQL_STATE;
            if (in.readableBytes() >= 6 && in.getByte(in.readerIndex()) == '#') {
                state = in.skipBytes(1).readCharSequence(5, US_ASCII).toString();
            }
            return new ErrPacket(
                    code, state, in.readCharSequence(in.readableBytes(), UTF_8).toString());
        } catch (IndexOutOfBoundsException e) {
            throw MalformedPacketException.truncated("ERR_Packet", e);
        }
    }

    /** Writes the 4.1 form with '#' and SQL state; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        write(out, new Capabilities(CapabilityFlags.CLIENT_PROTOCOL_41));
    }

    /** Writes the form {@code caps} calls for (no SQL state without CLIENT_PROTOCOL_41); neither retains nor releases. */
    public void write(ByteBuf out, Capabilities caps) {
        out.writeByte(HEADER);
        out.writeShortLE(code);
        if (caps.has(CapabilityFlags.CLIENT_PROTOCOL_41)) {
            out.writeByte('#');
            out.writeCharSequence(sqlState, US_ASCII);
        }
        out.writeCharSequence(message, UTF_8);
    }
}
