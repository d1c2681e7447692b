package io.shardgate.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Decodes MySQL packet frames (Protocol::Packet, "Sending More Than 16Mb") into {@link Packet}s:
 * a frame of 0xFFFFFF bytes is continued by the next frame, and the packet ends with the first
 * shorter frame (empty when the payload is an exact multiple of 0xFFFFFF).
 *
 * <p>Single-frame packets are retained slices of the cumulation buffer (no copy). Split payloads are
 * joined as a composite of retained slices, owned by this decoder until emitted and released when
 * the handler is removed. A packet longer than {@code maxAllowedPacket} is discarded as its bytes
 * stream in, without being buffered; a {@link PacketTooLargeException} is fired once per such
 * packet and decoding continues with the next packet.
 */
public final class PacketFrameDecoder extends ByteToMessageDecoder {
    private final int maxAllowedPacket;

    /** The split payload joined so far, or null. */
    private CompositeByteBuf joining;

    private int joiningFirstSequenceId;
    /** Payload bytes of the current frame still to skip (discarding an oversized packet). */
    private int discardInFrame;
    /** Whether the frame being discarded is a 0xFFFFFF frame, so continuation frames follow. */
    private boolean discardContinues;

    /** A decoder that refuses packets whose payload is longer than {@code maxAllowedPacket} bytes. */
    public PacketFrameDecoder(int maxAllowedPacket) {
        if (maxAllowedPacket < 0) {
            throw new IllegalArgumentException("maxAllowedPacket: " + maxAllowedPacket);
        }
        this.maxAllowedPacket = maxAllowedPacket;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        // One step per call: ByteToMessageDecoder calls again while bytes are consumed.
        if (discardInFrame > 0) {
            int n = Math.min(discardInFrame, in.readableBytes());
            in.skipBytes(n);
            discardInFrame -= n;
            return;
        }
        if (in.readableBytes() < Frame.HEADER_SIZE) {
            return;
        }
        int start = in.readerIndex();
        int length = Frame.readLength(in, start);
        int sequenceId = Frame.readSequenceId(in, start);
        if (discardContinues) {
            in.skipBytes(Frame.HEADER_SIZE);
            startDiscarding(length);
            return;
        }
        long total = (joining == null ? 0L : joining.readableBytes()) + length;
        if (total > maxAllowedPacket) {
            releaseJoining();
            in.skipBytes(Frame.HEADER_SIZE);
            startDiscarding(length);
            ctx.fireExceptionCaught(new PacketTooLargeException(total, maxAllowedPacket));
            return;
        }
        if (in.readableBytes() < Frame.HEADER_SIZE + length) {
            return;
        }
        in.skipBytes(Frame.HEADER_SIZE);
        if (joining == null && length < Frame.MAX_PAYLOAD) {
            out.add(new Packet(sequenceId, in.readRetainedSlice(length)));
            return;
        }
        if (joining == null) {
            joining = ctx.alloc().compositeBuffer(maxAllowedPacket / Frame.MAX_PAYLOAD + 2);
            joiningFirstSequenceId = sequenceId;
        }
        joining.addComponent(true, in.readRetainedSlice(length));
        if (length < Frame.MAX_PAYLOAD) {
            Packet packet = new Packet(joiningFirstSequenceId, sequenceId, joining);
            joining = null;
            out.add(packet);
        }
    }

    private void startDiscarding(int frameLength) {
        discardInFrame = frameLength;
        discardContinues = frameLength == Frame.MAX_PAYLOAD;
    }

    private void releaseJoining() {
        if (joining != null) {
            joining.release();
            joining = null;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        releaseJoining();
    }
}
