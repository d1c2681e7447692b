package io.shardgate.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.MalformedPacketException;

/**
 * COM_STMT_PREPARE_OK (server to client, the first packet of a COM_STMT_PREPARE response): 0x00,
 * statement id int&lt;4&gt;, columns int&lt;2&gt;, parameters int&lt;2&gt;, a filler byte and
 * warnings int&lt;2&gt;; parameter and column definitions follow. With
 * CLIENT_OPTIONAL_RESULTSET_METADATA a metadata_follows byte may end it; it is skipped.
 */
public record ComStmtPrepareOk(long statementId, int numColumns, int numParams, int warnings) {
    public static final int HEADER = 0x00;

    /** Reads a payload positioned at the header; neither retains nor releases {@code in}. */
    public static ComStmtPrepareOk read(ByteBuf in) {
        if (in.readableBytes() < 10 || in.readUnsignedByte() != HEADER) {
            throw new MalformedPacketException("not a COM_STMT_PREPARE_OK");
        }
        long statementId = in.readUnsignedIntLE();
        int columns = in.readUnsignedShortLE();
        int params = in.readUnsignedShortLE();
        in.skipBytes(1);
        int warnings = in.readableBytes() >= 2 ? in.readUnsignedShortLE() : 0;
        in.skipBytes(in.readableBytes());
        return new ComStmtPrepareOk(statementId, columns, params, warnings);
    }

    /** Writes the 12-byte payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out) {
        out.writeByte(HEADER);
        out.writeIntLE((int) statementId);
        out.writeShortLE(numColumns);
        out.writeShortLE(numParams);
        out.writeByte(0);
        out.writeShortLE(warnings);
    }
}
