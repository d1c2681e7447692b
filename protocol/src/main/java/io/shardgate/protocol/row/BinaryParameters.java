package io.shardgate.protocol.row;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.packet.ComStmtExecute;
import io.shardgate.protocol.packet.ParameterType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The parameter values of a COM_STMT_EXECUTE, decoded with the binary protocol value codec (the
 * same as binary rows) by each parameter's type and unsigned flag.
 */
public final class BinaryParameters {
    private BinaryParameters() {}

    /**
     * One Java value per parameter; null for NULL and for parameters whose value came through
     * COM_STMT_SEND_LONG_DATA (not in the execute packet).
     */
    public static List<Object> decode(ComStmtExecute execute) {
        List<Object> values = new ArrayList<>(execute.parameterCount());
        for (int i = 0; i < execute.parameterCount(); i++) {
            byte[] raw = execute.values().get(i);
            if (raw == null) {
                values.add(null);
                continue;
            }
            ParameterType type = execute.types().get(i);
            ByteBuf in = Unpooled.wrappedBuffer(raw);
            try {
                values.add(BinaryValue.read(in, type.type(), type.unsigned()));
                if (in.isReadable()) {
                    throw new MalformedPacketException(
                            "parameter " + i + " has " + in.readableBytes() + " extra bytes");
                }
            } finally {
                in.release();
            }
        }
        return Collections.unmodifiableList(values);
    }

    /** The raw binary encoding of one parameter value, for building a {@link ComStmtExecute}. */
    public static byte[] encode(Object value, ParameterType type) {
        ByteBuf out = Unpooled.buffer();
        try {
            BinaryValue.write(out, value, type.type());
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            return bytes;
        } finally {
            out.release();
        }
    }
}
