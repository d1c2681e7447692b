package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.type.Command;

/** COM_INIT_DB (client to server): 0x02 and the schema name string&lt;EOF&gt;, as sent by USE. */
public record ComInitDb(String schema) {
    /** Reads a payload positioned at the command byte; neither retains nor releases {@code in}. */
    public static ComInitDb read(ByteBuf in) {
        CommandByte.expect(in, Command.COM_INIT_DB);
        return new ComInitDb(in.readCharSequence(in.readableBytes(), UTF_8).toString());
    }

    /** Writes the payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(Command.COM_INIT_DB.code());
        out.writeCharSequence(schema, UTF_8);
    }
}
