package io.shardgate.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.MalformedPacketException;

/**
 * Protocol::AuthMoreData (server to client during authentication): 0x01 and plugin data
 * string&lt;EOF&gt;, e.g. caching_sha2_password's fast-auth result or a PEM public key.
 */
public record AuthMoreData(byte[] data) {
    public static final int HEADER = 0x01;

    /** Reads a payload positioned at the 0x01 header; neither retains nor releases {@code in}. */
    public static AuthMoreData read(ByteBuf in) {
        if (!in.isReadable() || in.readUnsignedByte() != HEADER) {
            throw new MalformedPacketException("not an AuthMoreData packet");
        }
        byte[] data = new byte[in.readableBytes()];
        in.readBytes(data);
        return new AuthMoreData(data);
    }

    /** Writes the payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(HEADER);
        out.writeBytes(data);
    }
}
