package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.codec.MalformedPacketException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Connection attributes (CLIENT_CONNECT_ATTRS) of HandshakeResponse41 and COM_CHANGE_USER: a
 * length-encoded total length followed by length-encoded key and value strings.
 */
final class ConnectAttributes {
    private ConnectAttributes() {}

    /** Reads the attribute block in order; neither retains nor releases {@code in}. */
    static Map<String, String> read(ByteBuf in) {
        long total = LengthEncoded.readInt(in);
        if (total < 0 || total > in.readableBytes()) {
            throw new MalformedPacketException("connection attributes of " + total + " bytes exceed the packet");
        }
        ByteBuf block = in.readSlice((int) total);
        Map<String, String> attributes = new LinkedHashMap<>();
        while (block.isReadable()) {
            String key = LengthEncoded.readString(block, UTF_8);
            String value = LengthEncoded.readString(block, UTF_8);
            attributes.put(key, value);
        }
        return Collections.unmodifiableMap(attributes);
    }

    /** Writes the attribute block; neither retains nor releases {@code out}. */
    static void write(ByteBuf out, Map<String, String> attributes) {
        int total = 0;
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            total += LengthEncoded.sizeOfString(e.getKey().getBytes(UTF_8).length);
            total += LengthEncoded.sizeOfString(e.getValue().getBytes(UTF_8).length);
        }
        LengthEncoded.writeInt(out, total);
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            LengthEncoded.writeString(out, e.getKey(), UTF_8);
            LengthEncoded.writeString(out, e.getValue(), UTF_8);
        }
    }
}
