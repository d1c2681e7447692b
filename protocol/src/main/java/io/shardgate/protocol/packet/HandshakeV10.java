package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.codec.NulTerminated;
import io.shardgate.protocol.type.CapabilityFlags;

/**
 * Protocol::HandshakeV10 (server to client, the first packet of a connection): protocol version 10,
 * server version, connection id, the auth plugin data (scramble) in two parts, capabilities,
 * character set, status flags and the auth plugin name.
 *
 * @param authPluginData the full scramble, parts 1 and 2 joined without the trailing NUL (20 bytes for
 *     mysql_native_password and caching_sha2_password)
 * @param capabilities server capabilities; MariaDB's extended capabilities come from the last 4 of the
 *     10 reserved bytes
 * @param authPluginName null when the server lacks CLIENT_PLUGIN_AUTH
 */
public record HandshakeV10(
        int protocolVersion,
        String serverVersion,
        long connectionId,
        byte[] authPluginData,
        Capabilities capabilities,
        int characterSet,
        int statusFlags,
        String authPluginName) {
    public static final int PROTOCOL_VERSION = 10;
    private static final int PART1 = 8;

    /** Reads a payload positioned at the protocol version byte; neither retains nor releases {@code in}. */
    public static HandshakeV10 read(ByteBuf in) {
        try {
            int version = in.readUnsignedByte();
            if (version != PROTOCOL_VERSION) {
                throw new MalformedPacketException("not a HandshakeV10: first byte 0x" + Integer.toHexString(version));
            }
            String serverVersion = NulTerminated.readString(in, UTF_8);
            long connectionId = in.readUnsignedIntLE();
            byte[] part1 = new byte[PART1];
            in.readBytes(part1);
            in.skipBytes(1); // filler
            int flags = in.readUnsignedShortLE();
            if (!in.isReadable()) {
                return new HandshakeV10(
                        version, serverVersion, connectionId, part1, new Capabilities(flags), 0, 0, null);
            }
            int characterSet = in.readUnsignedByte();
            int status = in.readUnsignedShortLE();
            flags |= in.readUnsignedShortLE() << 16;
            int authDataLength = in.readUnsignedByte();
            in.skipBytes(6);
            // MariaDB: extended capabilities; MySQL: reserved zeros
            int mariaDbFlags = in.readIntLE();
            byte[] data = part1;
            if ((flags & CapabilityFlags.CLIENT_SECURE_CONNECTION) != 0) {
                int part2Length = Math.max(13, authDataLength - PART1);
                int kept = part2Length;
                if (in.getByte(in.readerIndex() + part2Length - 1) == 0) {
                    kept--; // part 2 ends with a NUL that is not part of the scramble
                }
                data = new byte[PART1 + kept];
                System.arraycopy(part1, 0, data, 0, PART1);
                in.readBytes(data, PART1, kept);
                in.skipBytes(part2Length - kept);
            }
            String plugin = (flags & CapabilityFlags.CLIENT_PLUGIN_AUTH) != 0
                    ? NulTerminated.readStringOrRest(in, US_ASCII)
                    : null;
            return new HandshakeV10(
                    version,
                    serverVersion,
                    connectionId,
                    data,
                    new Capabilities(flags, mariaDbFlags),
                    characterSet,
                    status,
                    plugin);
        } catch (IndexOutOfBoundsException e) {
            throw MalformedPacketException.truncated("HandshakeV10", e);
        }
    }

    /** Writes the payload (part 2 of the scramble NUL-padded to 13 bytes); neither retains nor releases. */
    public void write(ByteBuf out) {
        int flags = capabilities.flags();
        out.writeByte(protocolVersion);
        NulTerminated.writeString(out, serverVersion, UTF_8);
        out.writeIntLE((int) connectionId);
        out.writeBytes(authPluginData, 0, Math.min(PART1, authPluginData.length));
        out.writeZero(PART1 - Math.min(PART1, authPluginData.length));
        out.writeByte(0);
        out.writeShortLE(flags);
        out.writeByte(characterSet);
        out.writeShortLE(statusFlags);
        out.writeShortLE(flags >>> 16);
        out.writeByte((flags & CapabilityFlags.CLIENT_PLUGIN_AUTH) != 0 ? authPluginData.length + 1 : 0);
        out.writeZero(6);
        out.writeIntLE(capabilities.mariaDbFlags());
        if ((flags & CapabilityFlags.CLIENT_SECURE_CONNECTION) != 0) {
            int part2 = Math.max(0, authPluginData.length - PART1);
            out.writeBytes(authPluginData, PART1, part2);
            out.writeZero(Math.max(13 - part2, 1));
        }
        if ((flags & CapabilityFlags.CLIENT_PLUGIN_AUTH) != 0) {
            NulTerminated.writeString(out, authPluginName == null ? "" : authPluginName, US_ASCII);
        }
    }
}
