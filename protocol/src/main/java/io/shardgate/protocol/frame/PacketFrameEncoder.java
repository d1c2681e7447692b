package io.shardgate.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/**
 * Encodes {@link Packet}s as MySQL packet frames (Protocol::Packet): payloads of 0xFFFFFF bytes or
 * more are split into 0xFFFFFF-byte frames with incrementing sequence ids (mod 256), followed by a
 * shorter frame, empty when the payload is an exact multiple.
 *
 * <p>A {@link MessageToMessageEncoder} rather than a MessageToByteEncoder so that large payloads
 * (relayed result rows, 16 MiB blobs) are never copied: each frame is a small header buffer plus a
 * retained slice of the payload, written with one gathering write. Small payloads are copied behind
 * their header into one buffer, which is cheaper than an extra buffer in the outbound queue. The
 * packet's {@link Packet#lastSequenceId()} is ignored: the encoder derives the frame ids itself.
 */
@ChannelHandler.Sharable
public final class PacketFrameEncoder extends MessageToMessageEncoder<Packet> {
    /** Payloads up to this size are copied next to their header instead of sliced. */
    static final int COPY_THRESHOLD = 512;

    public PacketFrameEncoder() {
        super(Packet.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Packet packet, List<Object> out) {
        ByteBuf payload = packet.payload();
        int length = payload.readableBytes();
        int sequenceId = packet.sequenceId();
        if (length <= COPY_THRESHOLD) {
            ByteBuf buf = ctx.alloc().ioBuffer(Frame.HEADER_SIZE + length);
            Frame.writeHeader(buf, length, sequenceId);
            buf.writeBytes(payload, payload.readerIndex(), length);
            out.add(buf);
            return;
        }
        int index = payload.readerIndex();
        int remaining = length;
        while (true) {
            int frameLength = Math.min(remaining, Frame.MAX_PAYLOAD);
            ByteBuf header = ctx.alloc().ioBuffer(Frame.HEADER_SIZE);
            Frame.writeHeader(header, frameLength, sequenceId);
            out.add(header);
            if (frameLength > 0) {
                out.add(payload.retainedSlice(index, frameLength));
            }
            index += frameLength;
            remaining -= frameLength;
            sequenceId = (sequenceId + 1) & 0xFF;
            if (frameLength < Frame.MAX_PAYLOAD) {
                return;
            }
        }
    }
}
