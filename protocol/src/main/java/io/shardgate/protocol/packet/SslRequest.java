package io.shardgate.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.type.CapabilityFlags;

/**
 * Protocol::SSLRequest (client to server): the first 32 bytes of a HandshakeResponse41 sent alone with
 * CLIENT_SSL set, after which the client starts TLS. Also the fixed prefix of HandshakeResponse41:
 * capabilities int&lt;4&gt;, max packet size int&lt;4&gt;, character set int&lt;1&gt;, 23 filler
 * bytes whose last 4 carry MariaDB's extended client capabilities.
 */
public record SslRequest(Capabilities capabilities, int maxPacketSize, int characterSet) {
    /** Length of the payload. */
    public static final int LENGTH = 32;

    /** Whether a handshake response payload is only an SSL request; neither retains nor releases. */
    public static boolean isSslRequest(ByteBuf payload) {
        return payload.readableBytes() == LENGTH
                && (payload.getIntLE(payload.readerIndex()) & CapabilityFlags.CLIENT_SSL) != 0;
    }

    /** Reads the 32-byte prefix; neither retains nor releases {@code in}. */
    public static SslRequest read(ByteBuf in) {
        if (in.readableBytes() < LENGTH) {
            throw new MalformedPacketException(
                    "truncated SSLRequest/HandshakeResponse41: " + in.readableBytes() + " bytes");
        }
        int flags = in.readIntLE();
        int maxPacketSize = in.readIntLE();
        int characterSet = in.readUnsignedByte();
        in.skipBytes(19);
        int mariaDbFlags = in.readIntLE();
        return new SslRequest(new Capabilities(flags, mariaDbFlags), maxPacketSize, characterSet);
    }

    /** Writes the 32-byte payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeIntLE(capabilities.flags());
        out.writeIntLE(maxPacketSize);
        out.writeByte(characterSet);
        out.writeZero(19);
        out.writeIntLE(capabilities.mariaDbFlags());
    }
}
