package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.codec.NulTerminated;
import io.shardgate.protocol.type.CapabilityFlags;
import java.util.Map;

/**
 * Protocol::HandshakeResponse41 (client to server): the {@link SslRequest} prefix, then user name,
 * auth response, database, auth plugin name and connection attributes, each present according to
 * the client's own capability flags.
 *
 * @param authResponse length-encoded with CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA, 1-byte length with
 *     CLIENT_SECURE_CONNECTION, NUL-terminated otherwise
 * @param database null unless CLIENT_CONNECT_WITH_DB
 * @param authPluginName null unless CLIENT_PLUGIN_AUTH
 * @param attributes in wire order; empty unless CLIENT_CONNECT_ATTRS
 */
public record HandshakeResponse41(
        Capabilities capabilities,
        int maxPacketSize,
        int characterSet,
        String username,
        byte[] authResponse,
        String database,
        String authPluginName,
        Map<String, String> attributes) {

    /** Reads a payload positioned at its first byte; neither retains nor releases {@code in}. */
    public static HandshakeResponse41 read(ByteBuf in) {
        try {
            SslRequest prefix = SslRequest.read(in);
            Capabilities caps = prefix.capabilities();
            String username = NulTerminated.readString(in, UTF_8);
            byte[] auth;
            if (caps.has(CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA)) {
                auth = LengthEncoded.readBytes(in);
            } else if (caps.has(CapabilityFlags.CLIENT_SECURE_CONNECTION)) {
                auth = new byte[in.readUnsignedByte()];
                in.readBytes(auth);
            } else {
                auth = NulTerminated.readBytes(in);
            }
            // Optional trailing fields: clients may set a flag yet end the packet early.
            String database = caps.has(CapabilityFlags.CLIENT_CONNECT_WITH_DB) && in.isReadable()
                    ? NulTerminated.readString(in, UTF_8)
                    : null;
            String plugin = caps.has(CapabilityFlags.CLIENT_PLUGIN_AUTH) && in.isReadable()
                    ? NulTerminated.readStringOrRest(in, US_ASCII)
                    : null;
            Map<String, String> attributes = caps.has(CapabilityFlags.CLIENT_CONNECT_ATTRS) && in.isReadable()
                    ? ConnectAttributes.read(in)
                    : Map.of();
            return new HandshakeResponse41(
                    caps,
                    prefix.maxPacketSize(),
                    prefix.characterSet(),
                    username,
                    auth == null ? new byte[0] : auth,
                    database,
                    plugin,
                    attributes);
        } catch (IndexOutOfBoundsException e) {
            throw MalformedPacketException.truncated("HandshakeResponse41", e);
        }
    }

    /** Writes the payload following {@link #capabilities()}; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        new SslRequest(capabilities, maxPacketSize, characterSet).write(out);
        NulTerminated.writeString(out, username, UTF_8);
        if (capabilities.has(CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA)) {
            LengthEncoded.writeBytes(out, authResponse);
        } else if (capabilities.has(CapabilityFlags.CLIENT_SECURE_CONNECTION)) {
            if (authResponse.length > 255) {
                throw new IllegalStateException(
                        "auth response longer than 255 bytes needs CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA");
            }
            out.writeByte(authResponse.length).writeBytes(authResponse);
        } else {
            NulTerminated.writeBytes(out, authResponse);
        }
        if (capabilities.has(CapabilityFlags.CLIENT_CONNECT_WITH_DB)) {
            NulTerminated.writeString(out, database == null ? "" : database, UTF_8);
        }
        if (capabilities.has(CapabilityFlags.CLIENT_PLUGIN_AUTH)) {
            NulTerminated.writeString(out, authPluginName == null ? "" : authPluginName, US_ASCII);
        }
        if (capabilities.has(CapabilityFlags.CLIENT_CONNECT_ATTRS)) {
            ConnectAttributes.write(out, attributes);
        }
    }
}
