package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.shardgate.protocol.frame.Frame;
import java.util.function.Consumer;

/**
 * Turns one backend's response bytes, cut anywhere, into whole packet payloads (Protocol::Packet):
 * a frame that lies inside one chunk becomes a retained slice of it (no copy); only a frame cut
 * between chunks is copied into a buffer of its own, and a payload of 16 MiB or more, which the
 * server splits over several frames, is joined. Hand-written because it runs outside a Netty
 * pipeline (the relay hands the chunks over), where Netty's frame decoders cannot.
 *
 * <p>Owns what it holds until {@link #close}; runs on the backend connection's event loop.
 */
final class PacketAssembler {
    private final ByteBufAllocator alloc;
    /** A frame (header included) whose bytes have not all arrived, or null. */
    private ByteBuf partial;
    /** The payload of a packet continued over 0xFFFFFF-byte frames, or null. */
    private ByteBuf joined;

    PacketAssembler(ByteBufAllocator alloc) {
        this.alloc = alloc;
    }

    /** Bytes held for packets not yet complete. */
    int heldBytes() {
        return (partial == null ? 0 : partial.capacity()) + (joined == null ? 0 : joined.readableBytes());
    }

    /**
     * Passes each payload completed by {@code chunk} to {@code packets}, which owns it; releases
     * {@code chunk}.
     */
    void addAndRelease(ByteBuf chunk, Consumer<ByteBuf> packets) {
        try {
            while (chunk.isReadable()) {
                if (partial != null) {
                    if (!completePartial(chunk)) {
                        return;
                    }
                    ByteBuf frame = partial;
                    partial = null;
                    payload(frame.skipBytes(Frame.HEADER_SIZE), packets);
                    continue;
                }
                int available = chunk.readableBytes();
                int length = available >= Frame.HEADER_SIZE ? chunk.getUnsignedMediumLE(chunk.readerIndex()) : -1;
                if (length < 0 || available < Frame.HEADER_SIZE + length) {
                    partial = alloc.buffer(length < 0 ? 64 : Frame.HEADER_SIZE + length);
                    partial.writeBytes(chunk);
                    return;
                }
                chunk.skipBytes(Frame.HEADER_SIZE);
                payload(chunk.readRetainedSlice(length), packets);
            }
        } finally {
            chunk.release();
        }
    }

    /** Moves bytes of {@code chunk} into the partial frame; true when the frame is complete. */
    private boolean completePartial(ByteBuf chunk) {
        if (partial.readableBytes() < Frame.HEADER_SIZE) {
            partial.writeBytes(chunk, Math.min(Frame.HEADER_SIZE - partial.readableBytes(), chunk.readableBytes()));
            if (partial.readableBytes() < Frame.HEADER_SIZE) {
                return false;
            }
        }
        int missing = Frame.HEADER_SIZE + partial.getUnsignedMediumLE(partial.readerIndex()) - partial.readableBytes();
        int n = Math.min(missing, chunk.readableBytes());
        partial.writeBytes(chunk, n);
        return n == missing;
    }

    /** One frame's payload (owned); a 16 MiB frame is the start or middle of a longer packet. */
    private void payload(ByteBuf payload, Consumer<ByteBuf> packets) {
        boolean continues = payload.readableBytes() == Frame.MAX_PAYLOAD;
        if (joined == null && !continues) {
            packets.accept(payload);
            return;
        }
        try {
            if (joined == null) {
                joined = alloc.buffer(2 * Frame.MAX_PAYLOAD);
            }
            joined.writeBytes(payload);
        } finally {
            payload.release();
        }
        if (!continues) {
            ByteBuf whole = joined;
            joined = null;
            packets.accept(whole);
        }
    }

    /** Releases what is held (the response ended, failed, or the client left). */
    void close() {
        if (partial != null) {
            partial.release();
            partial = null;
        }
        if (joined != null) {
            joined.release();
            joined = null;
        }
    }
}
