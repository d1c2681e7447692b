package io.shardgate.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.type.Command;

/**
 * COM_STMT_SEND_LONG_DATA (client to server): 0x18, statement id int&lt;4&gt;, parameter id
 * int&lt;2&gt;, a chunk of the parameter's value string&lt;EOF&gt;; no response.
 */
public record ComStmtSendLongData(long statementId, int parameterId, byte[] data) {
    /** Reads a payload positioned at the command byte; neither retains nor releases {@code in}. */
    public static ComStmtSendLongData read(ByteBuf in) {
        CommandByte.expect(in, Command.COM_STMT_SEND_LONG_DATA, 6);
        long statementId = in.readUnsignedIntLE();
        int parameterId = in.readUnsignedShortLE();
        byte[] data = new byte[in.readableBytes()];
        in.readBytes(data);
        return new ComStmtSendLongData(statementId, parameterId, data);
    }

    /** Writes the payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(Command.COM_STMT_SEND_LONG_DATA.code());
        out.writeIntLE((int) statementId);
        out.writeShortLE(parameterId);
        out.writeBytes(data);
    }
}
