package io.shardgate.protocol.codec;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.type.MySqlType;

/**
 * The wire length of one value in the binary protocol (Binary Protocol Value, used by binary result
 * rows, COM_STMT_EXECUTE parameters and query attributes): fixed for numbers, a 1-byte length prefix
 * for dates and times, a length-encoded string for everything else.
 */
public final class BinaryValueLength {
    private BinaryValueLength() {}

    /**
     * Bytes, prefix included, of the value of {@code type} starting at {@code index}; neither retains
     * nor releases {@code buf}. A prefix that points past the buffer is a {@link MalformedPacketException}.
     */
    public static int at(ByteBuf buf, int index, MySqlType type) {
        int length = switch (type) {
            case NULL -> 0;
            case TINY -> 1;
            case SHORT, YEAR -> 2;
            case LONG, INT24, FLOAT -> 4;
            case LONGLONG, DOUBLE -> 8;
            case DATE, DATETIME, TIMESTAMP, TIME, NEWDATE, DATETIME2, TIMESTAMP2, TIME2 -> 1 + readableByte(buf, index);
            default -> lengthEncodedAt(buf, index);
        };
        if (index + length > buf.writerIndex()) {
            throw new MalformedPacketException(
                    "binary " + type + " value of " + length + " bytes runs past the packet");
        }
        return length;
    }

    private static int readableByte(ByteBuf buf, int index) {
        if (index >= buf.writerIndex()) {
            throw new MalformedPacketException("truncated binary value");
        }
        return buf.getUnsignedByte(index);
    }

    private static int lengthEncodedAt(ByteBuf buf, int index) {
        int first = readableByte(buf, index);
        int prefix;
        long length;
        if (first < 0xFB) {
            return 1 + first;
        } else if (first == 0xFC && index + 3 <= buf.writerIndex()) {
            prefix = 3;
            length = buf.getUnsignedShortLE(index + 1);
        } else if (first == 0xFD && index + 4 <= buf.writerIndex()) {
            prefix = 4;
            length = buf.getUnsignedMediumLE(index + 1);
        } else if (first == 0xFE && index + 9 <= buf.writerIndex()) {
            prefix = 9;
            length = buf.getLongLE(index + 1);
        } else {
            throw new MalformedPacketException("bad length-encoded value prefix 0x" + Integer.toHexString(first));
        }
        if (length < 0 || length > Integer.MAX_VALUE - prefix) {
            throw new MalformedPacketException("binary value length out of range: " + Long.toUnsignedString(length));
        }
        return prefix + (int) length;
    }
}
