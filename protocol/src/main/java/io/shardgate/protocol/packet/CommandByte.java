package io.shardgate.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.type.Command;

/** The command byte that opens every command phase packet. */
final class CommandByte {
    private CommandByte() {}

    /** Consumes the command byte, which must be {@code expected}. */
    static void expect(ByteBuf in, Command expected) {
        if (!in.isReadable()) {
            throw new MalformedPacketException("empty payload, expected " + expected);
        }
        int code = in.readUnsignedByte();
        if (code != expected.code()) {
            throw new MalformedPacketException("expected " + expected + ", got command 0x" + Integer.toHexString(code));
        }
    }

    /** Consumes the command byte and {@code length} more bytes must follow. */
    static void expect(ByteBuf in, Command expected, int length) {
        expect(in, expected);
        if (in.readableBytes() < length) {
            throw new MalformedPacketException(
                    "truncated " + expected + ": " + in.readableBytes() + " of " + length + " bytes");
        }
    }
}
