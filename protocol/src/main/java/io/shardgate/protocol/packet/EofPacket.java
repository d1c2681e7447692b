package io.shardgate.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.MalformedPacketException;

/**
 * EOF_Packet (server to client, without CLIENT_DEPRECATE_EOF): 0xFE, warnings int&lt;2&gt;, status
 * flags int&lt;2&gt;; ends column definitions and rows. Shorter than 9 bytes, which tells it from a
 * row or an OK_Packet that starts with 0xFE.
 */
public record EofPacket(int warnings, int statusFlags) {
    public static final int HEADER = 0xFE;
    /** Payload length of the 4.1 form. */
    public static final int LENGTH = 5;

    /** Whether a payload is an EOF_Packet (0xFE and shorter than 9 bytes). */
    public static boolean isEof(ByteBuf payload) {
        return payload.readableBytes() < 9
                && payload.isReadable()
                && payload.getUnsignedByte(payload.readerIndex()) == HEADER;
    }

    /** Reads a payload positioned at the header (pre-4.1 1-byte form too); neither retains nor releases. */
    public static EofPacket read(ByteBuf in) {
        if (!isEof(in)) {
            throw new MalformedPacketException("not an EOF_Packet");
        }
        in.skipBytes(1);
        if (in.readableBytes() < 4) {
            in.skipBytes(in.readableBytes());
            return new EofPacket(0, 0);
        }
        return new EofPacket(in.readUnsignedShortLE(), in.readUnsignedShortLE());
    }

    /** Writes the 5-byte 4.1 form; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(HEADER);
        out.writeShortLE(warnings);
        out.writeShortLE(statusFlags);
    }
}
