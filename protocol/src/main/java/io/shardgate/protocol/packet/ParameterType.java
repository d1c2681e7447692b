package io.shardgate.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.type.MySqlType;

/**
 * The int&lt;2&gt; type of a COM_STMT_EXECUTE parameter or query attribute: the MySQL type byte and a
 * flags byte whose 0x80 bit marks an unsigned integer.
 */
public record ParameterType(MySqlType type, boolean unsigned) {
    private static final int UNSIGNED = 0x80;

    /** Reads the two bytes; neither retains nor releases {@code in}. */
    public static ParameterType read(ByteBuf in) {
        int code = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        MySqlType type = MySqlType.of(code);
        if (type == null) {
            throw new MalformedPacketException("unknown parameter type 0x" + Integer.toHexString(code));
        }
        return new ParameterType(type, (flags & UNSIGNED) != 0);
    }

    /** Writes the two bytes; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(type.code());
        out.writeByte(unsigned ? UNSIGNED : 0);
    }
}
