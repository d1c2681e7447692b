package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.codec.NulTerminated;
import java.util.Arrays;

/**
 * Protocol::AuthSwitchRequest (server to client): 0xFE, the auth plugin name string&lt;NUL&gt; and
 * the plugin data string&lt;EOF&gt; (for the SHA-based and native plugins a 20-byte scramble and a NUL).
 *
 * @param data the plugin data exactly as sent; see {@link #scramble()}
 */
public record AuthSwitchRequest(String pluginName, byte[] data) {
    public static final int HEADER = 0xFE;

    /** Reads a payload positioned at the 0xFE header; neither retains nor releases {@code in}. */
    public static AuthSwitchRequest read(ByteBuf in) {
        try {
            int header = in.readUnsignedByte();
            if (header != HEADER) {
                throw new MalformedPacketException("not an AuthSwitchRequest: 0x" + Integer.toHexString(header));
            }
            String plugin = NulTerminated.readString(in, US_ASCII);
            byte[] data = new byte[in.readableBytes()];
            in.readBytes(data);
            return new AuthSwitchRequest(plugin, data);
        } catch (IndexOutOfBoundsException e) {
            throw MalformedPacketException.truncated("AuthSwitchRequest", e);
        }
    }

    /** A request whose data is {@code scramble} followed by the NUL MySQL servers append. */
    public static AuthSwitchRequest withScramble(String pluginName, byte[] scramble) {
        byte[] data = Arrays.copyOf(scramble, scramble.length + 1);
        return new AuthSwitchRequest(pluginName, data);
    }

    /** The plugin data without the trailing NUL that servers append to a scramble. */
    public byte[] scramble() {
        return data.length > 0 && data[data.length - 1] == 0 ? Arrays.copyOf(data, data.length - 1) : data;
    }

    /** Writes the payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(HEADER);
        NulTerminated.writeString(out, pluginName, US_ASCII);
        out.writeBytes(data);
    }
}
