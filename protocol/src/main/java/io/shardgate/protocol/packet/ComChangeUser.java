package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.codec.NulTerminated;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Command;
import java.util.Map;

/**
 * COM_CHANGE_USER (client to server): 0x11, user string&lt;NUL&gt;, auth response (1-byte length
 * with CLIENT_SECURE_CONNECTION, else NUL-terminated), schema string&lt;NUL&gt;, then optionally
 * character set int&lt;2&gt;, auth plugin name (CLIENT_PLUGIN_AUTH) and connection attributes
 * (CLIENT_CONNECT_ATTRS).
 *
 * @param characterSet 0 when the client sent none
 * @param authPluginName null when absent
 * @param attributes empty when absent
 */
public record ComChangeUser(
        String user,
        byte[] authResponse,
        String schema,
        int characterSet,
        String authPluginName,
        Map<String, String> attributes) {

    /** Reads a payload positioned at the command byte; neither retains nor releases {@code in}. */
    public static ComChangeUser read(ByteBuf in, Capabilities caps) {
        try {
            CommandByte.expect(in, Command.COM_CHANGE_USER);
            String user = NulTerminated.readString(in, UTF_8);
            byte[] auth;
            if (caps.has(CapabilityFlags.CLIENT_SECURE_CONNECTION)) {
                auth = new byte[in.readUnsignedByte()];
                in.readBytes(auth);
            } else {
                auth = NulTerminated.readBytes(in);
            }
            String schema = NulTerminated.readString(in, UTF_8);
            int characterSet = in.readableBytes() >= 2 ? in.readUnsignedShortLE() : 0;
            String plugin = caps.has(CapabilityFlags.CLIENT_PLUGIN_AUTH) && in.isReadable()
                    ? NulTerminated.readStringOrRest(in, US_ASCII)
                    : null;
            Map<String, String> attributes = caps.has(CapabilityFlags.CLIENT_CONNECT_ATTRS) && in.isReadable()
                    ? ConnectAttributes.read(in)
                    : Map.of();
            return new ComChangeUser(user, auth, schema, characterSet, plugin, attributes);
        } catch (IndexOutOfBoundsException e) {
            throw MalformedPacketException.truncated("COM_CHANGE_USER", e);
        }
    }

    /** Writes the payload as negotiated by {@code caps}; neither retains nor releases {@code out}. */
    public void write(ByteBuf out, Capabilities caps) {
        out.writeByte(Command.COM_CHANGE_USER.code());
        NulTerminated.writeString(out, user, UTF_8);
        if (caps.has(CapabilityFlags.CLIENT_SECURE_CONNECTION)) {
            if (authResponse.length > 255) {
                throw new IllegalStateException("COM_CHANGE_USER auth response longer than 255 bytes");
            }
            out.writeByte(authResponse.length).writeBytes(authResponse);
        } else {
            NulTerminated.writeBytes(out, authResponse);
        }
        NulTerminated.writeString(out, schema == null ? "" : schema, UTF_8);
        out.writeShortLE(characterSet);
        if (caps.has(CapabilityFlags.CLIENT_PLUGIN_AUTH)) {
            NulTerminated.writeString(out, authPluginName == null ? "" : authPluginName, US_ASCII);
        }
        if (caps.has(CapabilityFlags.CLIENT_CONNECT_ATTRS)) {
            ConnectAttributes.write(out, attributes);
        }
    }
}
