package io.shardgate.protocol.codec;

import io.netty.buffer.ByteBuf;
import java.nio.charset.Charset;

/**
 * MySQL length-encoded integers and strings (Protocol::LengthEncodedInteger, string&lt;lenenc&gt;):
 * a first byte below 0xFB is the value; 0xFC, 0xFD and 0xFE prefix a 2-, 3- and 8-byte
 * little-endian value; 0xFB is NULL (in text rows and a few optional fields); 0xFF never starts
 * one (it is an ERR_Packet header).
 *
 * <p>Every method neither retains nor releases its buffer. Integers are unsigned 64-bit; values of
 * 2^63 and more come back as negative longs (use {@link Long#toUnsignedString(long)}).
 */
public final class LengthEncoded {
    /** The first byte that marks a NULL value. */
    public static final int NULL = 0xFB;

    private LengthEncoded() {}

    /** Whether the next byte of {@code in} is the NULL marker 0xFB. */
    public static boolean isNull(ByteBuf in) {
        return in.isReadable() && in.getUnsignedByte(in.readerIndex()) == NULL;
    }

    /** Reads a length-encoded integer; NULL or 0xFF gives a {@link MalformedPacketException}. */
    public static long readInt(ByteBuf in) {
        requireReadable(in, 1);
        int first = in.readUnsignedByte();
        if (first < NULL) {
            return first;
        }
        return switch (first) {
            case 0xFC -> {
                requireReadable(in, 2);
                yield in.readUnsignedShortLE();
            }
            case 0xFD -> {
                requireReadable(in, 3);
                yield in.readUnsignedMediumLE();
            }
            case 0xFE -> {
                requireReadable(in, 8);
                yield in.readLongLE();
            }
            default ->
                throw new MalformedPacketException(
                        "invalid length-encoded integer prefix 0x" + Integer.toHexString(first));
        };
    }

    /** Bytes {@link #writeInt} uses for {@code value} (unsigned). */
    public static int sizeOfInt(long value) {
        if (Long.compareUnsigned(value, 251) < 0) {
            return 1;
        }
        if (Long.compareUnsigned(value, 1L << 16) < 0) {
            return 3;
        }
        if (Long.compareUnsigned(value, 1L << 24) < 0) {
            return 4;
        }
        return 9;
    }

    /** Writes {@code value} (unsigned) as a length-encoded integer. */
    public static void writeInt(ByteBuf out, long value) {
        switch (sizeOfInt(value)) {
            case 1 -> out.writeByte((int) value);
            case 3 -> out.writeByte(0xFC).writeShortLE((int) value);
            case 4 -> out.writeByte(0xFD).writeMediumLE((int) value);
            default -> out.writeByte(0xFE).writeLongLE(value);
        }
    }

    /** Writes the NULL marker 0xFB. */
    public static void writeNull(ByteBuf out) {
        out.writeByte(NULL);
    }

    /**
     * Reads a length-encoded string as a slice of {@code in} valid while {@code in} is, or
     * {@code null} for the NULL marker.
     */
    public static ByteBuf readSlice(ByteBuf in) {
        if (isNull(in)) {
            in.skipBytes(1);
            return null;
        }
        return in.readSlice(checkedLength(in));
    }

    /** Reads a length-encoded string as bytes, or {@code null} for the NULL marker. */
    public static byte[] readBytes(ByteBuf in) {
        if (isNull(in)) {
            in.skipBytes(1);
            return null;
        }
        byte[] bytes = new byte[checkedLength(in)];
        in.readBytes(bytes);
        return bytes;
    }

    /** Reads a length-encoded string decoded with {@code charset}, or {@code null} for NULL. */
    public static String readString(ByteBuf in, Charset charset) {
        if (isNull(in)) {
            in.skipBytes(1);
            return null;
        }
        int length = checkedLength(in);
        String s = in.toString(in.readerIndex(), length, charset);
        in.skipBytes(length);
        return s;
    }

    /** Skips a length-encoded string or the NULL marker. */
    public static void skip(ByteBuf in) {
        if (isNull(in)) {
            in.skipBytes(1);
            return;
        }
        in.skipBytes(checkedLength(in));
    }

    /** Writes {@code bytes} as a length-encoded string, or the NULL marker when null. */
    public static void writeBytes(ByteBuf out, byte[] bytes) {
        if (bytes == null) {
            writeNull(out);
            return;
        }
        writeInt(out, bytes.length);
        out.writeBytes(bytes);
    }

    /** Writes the readable bytes of {@code value} (not moving its reader index) as a length-encoded string. */
    public static void writeBytes(ByteBuf out, ByteBuf value) {
        int length = value.readableBytes();
        writeInt(out, length);
        out.writeBytes(value, value.readerIndex(), length);
    }

    /** Writes {@code s} encoded with {@code charset} as a length-encoded string, or NULL when null. */
    public static void writeString(ByteBuf out, String s, Charset charset) {
        writeBytes(out, s == null ? null : s.getBytes(charset));
    }

    /** Bytes a length-encoded string of {@code length} bytes takes. */
    public static int sizeOfString(int length) {
        return sizeOfInt(length) + length;
    }

    private static int checkedLength(ByteBuf in) {
        long length = readInt(in);
        if (length < 0 || length > in.readableBytes()) {
            throw new MalformedPacketException("length-encoded string of " + Long.toUnsignedString(length)
                    + " bytes but only " + in.readableBytes() + " left");
        }
        return (int) length;
    }

    private static void requireReadable(ByteBuf in, int n) {
        if (in.readableBytes() < n) {
            throw new MalformedPacketException("truncated length-encoded integer");
        }
    }
}
