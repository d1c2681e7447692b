package io.shardgate.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.type.Command;

/** COM_SET_OPTION (client to server): 0x1B and option int&lt;2&gt; (0 multi-statements on, 1 off). */
public record ComSetOption(int option) {
    public static final int MYSQL_OPTION_MULTI_STATEMENTS_ON = 0;
    public static final int MYSQL_OPTION_MULTI_STATEMENTS_OFF = 1;

    /** Reads a payload positioned at the command byte; neither retains nor releases {@code in}. */
    public static ComSetOption read(ByteBuf in) {
        CommandByte.expect(in, Command.COM_SET_OPTION, 2);
        return new ComSetOption(in.readUnsignedShortLE());
    }

    /** Writes the payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(Command.COM_SET_OPTION.code());
        out.writeShortLE(option);
    }
}
