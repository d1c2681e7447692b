package io.shardgate.protocol.frame;

import io.netty.buffer.ByteBuf;

/**
 * The MySQL packet frame header (Protocol::Packet): int&lt;3&gt; payload length and int&lt;1&gt;
 * sequence id; payloads of 0xFFFFFF bytes or more are split into several frames.
 */
public final class Frame {
    /** Bytes of a frame header. */
    public static final int HEADER_SIZE = 4;
    /** The largest payload of one frame; a frame this long is continued by the next one. */
    public static final int MAX_PAYLOAD = 0xFFFFFF;

    private Frame() {}

    /** The payload length of the frame whose header starts at {@code index}; neither retains nor releases. */
    public static int readLength(ByteBuf buf, int index) {
        return buf.getUnsignedMediumLE(index);
    }

    /** The sequence id of the frame whose header starts at {@code index}; neither retains nor releases. */
    public static int readSequenceId(ByteBuf buf, int index) {
        return buf.getUnsignedByte(index + 3);
    }

    /** Writes a frame header; neither retains nor releases {@code out}. */
    public static void writeHeader(ByteBuf out, int payloadLength, int sequenceId) {
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD) {
            throw new IllegalArgumentException("frame payload length out of range: " + payloadLength);
        }
        out.writeMediumLE(payloadLength);
        out.writeByte(sequenceId);
    }

    /**
     * Frames needed for a payload: an exact multiple of 0xFFFFFF (including 0) ends with an empty
     * frame, so this is always {@code length / 0xFFFFFF + 1}.
     */
    public static int frameCount(int payloadLength) {
        return payloadLength / MAX_PAYLOAD + 1;
    }

    /** Bytes on the wire for a payload of this length, headers included. */
    public static long framedSize(int payloadLength) {
        return (long) payloadLength + (long) HEADER_SIZE * frameCount(payloadLength);
    }
}
