package io.shardgate.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.type.Command;

/** COM_STMT_FETCH (client to server): 0x1C, statement id int&lt;4&gt;, number of rows int&lt;4&gt; from an open cursor. */
public record ComStmtFetch(long statementId, long numRows) {
    /** Reads a payload positioned at the command byte; neither retains nor releases {@code in}. */
    public static ComStmtFetch read(ByteBuf in) {
        CommandByte.expect(in, Command.COM_STMT_FETCH, 8);
        return new ComStmtFetch(in.readUnsignedIntLE(), in.readUnsignedIntLE());
    }

    /** Writes the payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(Command.COM_STMT_FETCH.code());
        out.writeIntLE((int) statementId);
        out.writeIntLE((int) numRows);
    }
}
