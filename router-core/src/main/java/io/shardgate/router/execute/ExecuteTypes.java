package io.shardgate.router.execute;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.frame.Packet;

/**
 * Parameter types in COM_STMT_EXECUTE under multiplexing. A client sends the types once
 * (new_params_bound_flag = 1) and then omits them, relying on the server session that has them;
 * the next execution may run on another connection, so the router remembers the types and puts
 * them back into executions that omit them.
 */
final class ExecuteTypes {
    /** Payload offset of the NULL bitmap: command, statement id int<4>, flags, iteration count int<4>. */
    private static final int NULL_BITMAP = 10;

    private ExecuteTypes() {}

    /**
     * The execution to send: {@code execute} itself (types present, remembered now), or a copy
     * with the remembered types bound; takes ownership of {@code execute}.
     */
    static Packet bound(Packet execute, PreparedStatements.Prepared statement) {
        if (statement.parameters == 0) {
            return execute;
        }
        ByteBuf in = execute.payload();
        int base = in.readerIndex();
        int flagAt = base + NULL_BITMAP + (statement.parameters + 7) / 8;
        if (in.writerIndex() <= flagAt) {
            return execute; // malformed: the server answers it
        }
        if (in.getUnsignedByte(flagAt) == 1) {
            byte[] types = new byte[2 * statement.parameters];
            if (in.writerIndex() >= flagAt + 1 + types.length) {
                in.getBytes(flagAt + 1, types);
                statement.types = types;
            }
            return execute;
        }
        if (statement.types == null) {
            return execute;
        }
        ByteBuf rebuilt = in.alloc().buffer(in.readableBytes() + statement.types.length);
        try {
            rebuilt.writeBytes(in, base, flagAt - base)
                    .writeByte(1)
                    .writeBytes(statement.types)
                    .writeBytes(in, flagAt + 1, in.writerIndex() - flagAt - 1);
        } catch (RuntimeException e) {
            rebuilt.release();
            throw e;
        }
        Packet bound = new Packet(execute.sequenceId(), rebuilt);
        execute.release();
        return bound;
    }
}
