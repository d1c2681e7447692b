package io.shardgate.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.type.Command;

/** COM_STMT_RESET (client to server): 0x1A and statement id int&lt;4&gt;; discards long data and closes the cursor. */
public record ComStmtReset(long statementId) {
    /** Reads a payload positioned at the command byte; neither retains nor releases {@code in}. */
    public static ComStmtReset read(ByteBuf in) {
        CommandByte.expect(in, Command.COM_STMT_RESET, 4);
        return new ComStmtReset(in.readUnsignedIntLE());
    }

    /** Writes the payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(Command.COM_STMT_RESET.code());
        out.writeIntLE((int) statementId);
    }
}
