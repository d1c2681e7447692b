package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.BinaryValueLength;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Command;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;

/**
 * COM_STMT_EXECUTE (client to server): 0x17, statement id int&lt;4&gt;, flags (cursor type)
 * int&lt;1&gt;, iteration count int&lt;4&gt;; when there are parameters: null bitmap, the
 * new-params-bound flag, the parameter types when newly bound (with names under
 * CLIENT_QUERY_ATTRIBUTES) and the non-NULL values in the binary protocol.
 *
 * <p>Under CLIENT_QUERY_ATTRIBUTES the parameter count is sent explicitly (and includes query
 * attributes). Values of parameters that received COM_STMT_SEND_LONG_DATA are not in the packet.
 *
 * @param types the effective types: sent ones when {@code newParamsBound}, else those bound before
 * @param names parameter names (query attributes only); empty strings otherwise
 * @param values each parameter's raw binary value, or null for NULL and long-data parameters
 */
public record ComStmtExecute(
        long statementId,
        int flags,
        long iterationCount,
        byte[] nullBitmap,
        boolean newParamsBound,
        List<ParameterType> types,
        List<String> names,
        List<byte[]> values) {
    public static final int CURSOR_TYPE_NO_CURSOR = 0;
    public static final int CURSOR_TYPE_READ_ONLY = 1;
    public static final int CURSOR_TYPE_FOR_UPDATE = 2;
    public static final int CURSOR_TYPE_SCROLLABLE = 4;
    /** With CLIENT_QUERY_ATTRIBUTES: a parameter count follows even for statements without parameters. */
    public static final int PARAMETER_COUNT_AVAILABLE = 8;

    /** Payload offset of the flags byte: after the command byte and the statement id. */
    private static final int FLAGS_OFFSET = 5;

    /**
     * Whether the COM_STMT_EXECUTE payload starting at {@code payload}'s reader index asks for a
     * cursor (any cursor type bit set); neither retains nor releases {@code payload}. A payload
     * too short to hold the flags asks for none (the server rejects it).
     */
    public static boolean requestsCursor(ByteBuf payload) {
        int at = payload.readerIndex() + FLAGS_OFFSET;
        return at < payload.writerIndex()
                && (payload.getUnsignedByte(at)
                                & (CURSOR_TYPE_READ_ONLY | CURSOR_TYPE_FOR_UPDATE | CURSOR_TYPE_SCROLLABLE))
                        != 0;
    }

    /** Number of parameters. */
    public int parameterCount() {
        return types.size();
    }

    /** Whether parameter {@code i} is NULL. */
    public boolean isNull(int i) {
        return (nullBitmap[i >>> 3] & (1 << (i & 7))) != 0;
    }

    /** Reads without long data; see {@link #read(ByteBuf, Capabilities, int, List, BitSet)}. */
    public static ComStmtExecute read(ByteBuf in, Capabilities caps, int paramCount, List<ParameterType> boundTypes) {
        return read(in, caps, paramCount, boundTypes, new BitSet());
    }

    /**
     * Reads a payload positioned at the command byte; neither retains nor releases {@code in}.
     *
     * @param paramCount parameters of the prepared statement (from COM_STMT_PREPARE_OK)
     * @param boundTypes types sent by an earlier execute of the statement, used when this one does
     *     not rebind; empty if none
     * @param longData parameters that received COM_STMT_SEND_LONG_DATA since the last execute
     */
    public static ComStmtExecute read(
            ByteBuf in, Capabilities caps, int paramCount, List<ParameterType> boundTypes, BitSet longData) {
        try {
            CommandByte.expect(in, Command.COM_STMT_EXECUTE, 9);
            long statementId = in.readUnsignedIntLE();
            int flags = in.readUnsignedByte();
            long iterations = in.readUnsignedIntLE();
            boolean attributes = caps.has(CapabilityFlags.CLIENT_QUERY_ATTRIBUTES);
            int n = paramCount;
            if (attributes && (paramCount > 0 || (flags & PARAMETER_COUNT_AVAILABLE) != 0)) {
                n = checkedCount(LengthEncoded.readInt(in));
            }
            if (n == 0) {
                return new ComStmtExecute(
                        statementId, flags, iterations, new byte[0], false, List.of(), List.of(), List.of());
            }
            byte[] nullBitmap = new byte[(n + 7) / 8];
            in.readBytes(nullBitmap);
            boolean newParams = in.readUnsignedByte() == 1;
            List<ParameterType> types = new ArrayList<>(n);
            List<String> names = new ArrayList<>(n);
            if (newParams) {
                for (int i = 0; i < n; i++) {
                    types.add(ParameterType.read(in));
                    names.add(attributes ? LengthEncoded.readString(in, UTF_8) : "");
                }
            } else {
                if (boundTypes.size() != n) {
                    throw new MalformedPacketException(
                            "COM_STMT_EXECUTE without types for " + n + " unbound parameters");
                }
                types.addAll(boundTypes);
                names.addAll(Collections.nCopies(n, ""));
            }
            List<byte[]> values = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                if ((nullBitmap[i >>> 3] & (1 << (i & 7))) != 0 || longData.get(i)) {
                    values.add(null);
                    continue;
                }
                byte[] value = new byte
                        [BinaryValueLength.at(in, in.readerIndex(), types.get(i).type())];
                in.readBytes(value);
                values.add(value);
            }
            return new ComStmtExecute(
                    statementId,
                    flags,
                    iterations,
                    nullBitmap,
                    newParams,
                    Collections.unmodifiableList(types),
                    Collections.unmodifiableList(names),
                    Collections.unmodifiableList(values));
        } catch (IndexOutOfBoundsException e) {
            throw MalformedPacketException.truncated("COM_STMT_EXECUTE", e);
        }
    }

    private static int checkedCount(long count) {
        if (count < 0 || count > 0xFFFF) {
            throw new MalformedPacketException("parameter count out of range: " + count);
        }
        return (int) count;
    }

    /** Writes the payload as negotiated by {@code caps}; neither retains nor releases {@code out}. */
    public void write(ByteBuf out, Capabilities caps) {
        out.writeByte(Command.COM_STMT_EXECUTE.code());
        out.writeIntLE((int) statementId);
        out.writeByte(flags);
        out.writeIntLE((int) iterationCount);
        boolean attributes = caps.has(CapabilityFlags.CLIENT_QUERY_ATTRIBUTES);
        int n = types.size();
        if (attributes && (n > 0 || (flags & PARAMETER_COUNT_AVAILABLE) != 0)) {
            LengthEncoded.writeInt(out, n);
        }
        if (n == 0) {
            return;
        }
        out.writeBytes(nullBitmap);
        out.writeByte(newParamsBound ? 1 : 0);
        if (newParamsBound) {
            for (int i = 0; i < n; i++) {
                types.get(i).write(out);
                if (attributes) {
                    LengthEncoded.writeString(out, names.get(i), UTF_8);
                }
            }
        }
        for (byte[] value : values) {
            if (value != null) {
                out.writeBytes(value);
            }
        }
    }
}
