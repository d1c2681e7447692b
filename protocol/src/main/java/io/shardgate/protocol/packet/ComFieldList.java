package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.NulTerminated;
import io.shardgate.protocol.type.Command;

/**
 * COM_FIELD_LIST (client to server, deprecated): 0x04, table string&lt;NUL&gt;, column wildcard
 * string&lt;EOF&gt;.
 */
public record ComFieldList(String table, String wildcard) {
    /** Reads a payload positioned at the command byte; neither retains nor releases {@code in}. */
    public static ComFieldList read(ByteBuf in) {
        CommandByte.expect(in, Command.COM_FIELD_LIST);
        String table = NulTerminated.readString(in, UTF_8);
        return new ComFieldList(
                table, in.readCharSequence(in.readableBytes(), UTF_8).toString());
    }

    /** Writes the payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(Command.COM_FIELD_LIST.code());
        NulTerminated.writeString(out, table, UTF_8);
        out.writeCharSequence(wildcard, UTF_8);
    }
}
