package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.frame.Frame;

/**
 * Walks the packets of one buffered response (Protocol::Packet frames): each payload as a slice of
 * the response, or, for a payload split over 16 MiB frames, as a joined heap copy.
 */
final class PacketReader {
    private final ByteBuf frames;
    private final int shard;
    private int index;

    /** Neither retains nor releases {@code frames}; the slices handed out live as long as it does. */
    PacketReader(ByteBuf frames, int shard) {
        this.frames = frames;
        this.shard = shard;
        this.index = frames.readerIndex();
    }

    /** Index in the response buffer of the next frame. */
    int position() {
        return index;
    }

    boolean hasNext() {
        return index < frames.writerIndex();
    }

    /** The next payload; a {@link MergeException} when the frames end before it does. */
    ByteBuf next() {
        int length = frameLength();
        if (length < Frame.MAX_PAYLOAD) {
            ByteBuf payload = frames.slice(index + Frame.HEADER_SIZE, length);
            index += Frame.HEADER_SIZE + length;
            return payload;
        }
        // rare: a payload of 16 MiB or more continues in the next frames until a shorter one
        long total = 0;
        int scan = index;
        int frameLength;
        do {
            frameLength = frameLengthAt(scan);
            total += frameLength;
            scan += Frame.HEADER_SIZE + frameLength;
        } while (frameLength == Frame.MAX_PAYLOAD);
        if (total > Integer.MAX_VALUE - 8) {
            throw new MergeException("shard " + (shard + 1) + " sent a packet of " + total + " bytes");
        }
        byte[] joined = new byte[(int) total];
        int at = 0;
        do {
            frameLength = frameLengthAt(index);
            frames.getBytes(index + Frame.HEADER_SIZE, joined, at, frameLength);
            at += frameLength;
            index += Frame.HEADER_SIZE + frameLength;
        } while (frameLength == Frame.MAX_PAYLOAD);
        return Unpooled.wrappedBuffer(joined);
    }

    private int frameLength() {
        return frameLengthAt(index);
    }

    private int frameLengthAt(int at) {
        if (at + Frame.HEADER_SIZE > frames.writerIndex()) {
            throw new MergeException("shard " + (shard + 1) + "'s response ends inside a frame header");
        }
        int length = Frame.readLength(frames, at);
        if (at + Frame.HEADER_SIZE + length > frames.writerIndex()) {
            throw new MergeException("shard " + (shard + 1) + "'s response ends inside a packet");
        }
        return length;
    }
}
