package io.shardgate.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.type.Command;

/** COM_STMT_CLOSE (client to server): 0x19 and statement id int&lt;4&gt;; the server sends no response. */
public record ComStmtClose(long statementId) {
    /** Reads a payload positioned at the command byte; neither retains nor releases {@code in}. */
    public static ComStmtClose read(ByteBuf in) {
        CommandByte.expect(in, Command.COM_STMT_CLOSE, 4);
        return new ComStmtClose(in.readUnsignedIntLE());
    }

    /** Writes the payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(Command.COM_STMT_CLOSE.code());
        out.writeIntLE((int) statementId);
    }
}
