package io.shardgate.router.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.shardgate.protocol.frame.Frame;
import java.util.function.Consumer;

/**
 * Frames a packet the router generates itself (handshake, OK, ERR, a command to a backend) into
 * one buffer: header placeholder first, payload written in place, length patched after, so the
 * payload is never copied. Relayed packets do not come through here.
 */
public final class PacketWriter {
    private PacketWriter() {}

    /**
     * Returns a new buffer holding one frame; the caller owns it. Payloads of 16 MiB or more are
     * refused: the router never generates them (relayed ones keep their own framing).
     */
    public static ByteBuf frame(ByteBufAllocator alloc, int sequenceId, int sizeHint, Consumer<ByteBuf> payload) {
        ByteBuf buf = alloc.ioBuffer(Frame.HEADER_SIZE + sizeHint);
        try {
            buf.writerIndex(Frame.HEADER_SIZE);
            payload.accept(buf);
            int length = buf.writerIndex() - Frame.HEADER_SIZE;
            if (length >= Frame.MAX_PAYLOAD) {
                throw new IllegalArgumentException("generated packet of " + length + " bytes needs splitting");
            }
            buf.setMediumLE(0, length);
            buf.setByte(3, sequenceId);
            return buf;
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
    }
}
