package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.type.Command;

/** COM_STMT_PREPARE (client to server): 0x16 and the statement text string&lt;EOF&gt; with ? placeholders. */
public record ComStmtPrepare(String sql) {
    /** Reads a payload positioned at the command byte; neither retains nor releases {@code in}. */
    public static ComStmtPrepare read(ByteBuf in) {
        CommandByte.expect(in, Command.COM_STMT_PREPARE);
        return new ComStmtPrepare(in.readCharSequence(in.readableBytes(), UTF_8).toString());
    }

    /** Writes the payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(Command.COM_STMT_PREPARE.code());
        out.writeCharSequence(sql, UTF_8);
    }
}
