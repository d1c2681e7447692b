package io.shardgate.protocol.codec;

import io.netty.buffer.ByteBuf;
import java.nio.charset.Charset;

/** MySQL NUL-terminated strings (string&lt;NUL&gt;); every method neither retains nor releases. */
public final class NulTerminated {
    private NulTerminated() {}

    /** Reads up to and past the next 0x00 byte; no terminator is a {@link MalformedPacketException}. */
    public static String readString(ByteBuf in, Charset charset) {
        int end = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) 0);
        if (end < 0) {
            throw new MalformedPacketException("missing NUL terminator");
        }
        String s = in.toString(in.readerIndex(), end - in.readerIndex(), charset);
        in.readerIndex(end + 1);
        return s;
    }

    /** Like {@link #readString} but bytes; no terminator is a {@link MalformedPacketException}. */
    public static byte[] readBytes(ByteBuf in) {
        int end = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) 0);
        if (end < 0) {
            throw new MalformedPacketException("missing NUL terminator");
        }
        byte[] bytes = new byte[end - in.readerIndex()];
        in.readBytes(bytes);
        in.skipBytes(1);
        return bytes;
    }

    /**
     * Reads up to the next 0x00 byte or, when there is none, to the end: for fields that some servers
     * send unterminated at the end of a packet (the auth plugin name of MySQL 5.5.7-5.5.9).
     */
    public static String readStringOrRest(ByteBuf in, Charset charset) {
        int end = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) 0);
        int length = (end < 0 ? in.writerIndex() : end) - in.readerIndex();
        String s = in.toString(in.readerIndex(), length, charset);
        in.skipBytes(end < 0 ? length : length + 1);
        return s;
    }

    /** Writes {@code s} and a 0x00 byte. */
    public static void writeString(ByteBuf out, String s, Charset charset) {
        out.writeCharSequence(s, charset);
        out.writeByte(0);
    }

    /** Writes {@code bytes} and a 0x00 byte. */
    public static void writeBytes(ByteBuf out, byte[] bytes) {
        out.writeBytes(bytes);
        out.writeByte(0);
    }
}
