package io.shardgate.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class PacketFrameEncoderTest {
    private static final int MAX = Frame.MAX_PAYLOAD;

    private static byte[] pattern(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 7 + (i >>> 12));
        }
        return b;
    }

    /** Everything the encoder wrote, concatenated; releases the outbound buffers. */
    private static ByteBuf drain(EmbeddedChannel ch) {
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf b = ch.readOutbound(); b != null; b = ch.readOutbound()) {
            all.writeBytes(b);
            b.release();
        }
        return all;
    }

    @Test
    void writesSmallPacketAsOneFrame() {
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameEncoder());
        ch.writeOutbound(new Packet(1, Unpooled.wrappedBuffer(new byte[] {0x0E})));
        ByteBuf wire = drain(ch);
        assertThat(wire.readableBytes()).isEqualTo(5);
        assertThat(Frame.readLength(wire, 0)).isEqualTo(1);
        assertThat(Frame.readSequenceId(wire, 0)).isEqualTo(1);
        assertThat(wire.getByte(4)).isEqualTo((byte) 0x0E);
        wire.release();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void writesEmptyPayloadAsHeaderOnly() {
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameEncoder());
        ch.writeOutbound(new Packet(9, Unpooled.EMPTY_BUFFER));
        ByteBuf wire = drain(ch);
        assertThat(wire.readableBytes()).isEqualTo(4);
        assertThat(wire.getUnsignedIntLE(0)).isEqualTo(9L << 24);
        wire.release();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void writesLargeButUnsplitPayloadWithoutCopyingIt() {
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameEncoder());
        ByteBuf payload = Unpooled.wrappedBuffer(pattern(4096));
        ch.writeOutbound(new Packet(2, payload));
        ByteBuf header = ch.readOutbound();
        ByteBuf body = ch.readOutbound();
        assertThat(header.readableBytes()).isEqualTo(4);
        assertThat(Frame.readLength(header, 0)).isEqualTo(4096);
        assertThat(body.unwrap()).isSameAs(payload);
        header.release();
        body.release();
        assertThat(payload.refCnt()).isZero();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void splitsExactlyMaxPayloadAndTerminatesWithEmptyFrame() {
        assertSplits(MAX, 255, new int[] {MAX, 0});
    }

    @Test
    void splitsMaxPayloadPlusOne() {
        assertSplits(MAX + 1, 0, new int[] {MAX, 1});
    }

    @Test
    void splitsTwiceMaxPayload() {
        assertSplits(2 * MAX, 10, new int[] {MAX, MAX, 0});
    }

    private static void assertSplits(int length, int firstSeq, int[] frameLengths) {
        byte[] payload = pattern(length);
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameEncoder());
        ch.writeOutbound(new Packet(firstSeq, Unpooled.wrappedBuffer(payload)));
        ByteBuf wire = drain(ch);
        ByteBuf joined = Unpooled.buffer(length);
        for (int i = 0; i < frameLengths.length; i++) {
            assertThat(Frame.readLength(wire, wire.readerIndex())).isEqualTo(frameLengths[i]);
            assertThat(Frame.readSequenceId(wire, wire.readerIndex())).isEqualTo((firstSeq + i) & 0xFF);
            wire.skipBytes(Frame.HEADER_SIZE);
            joined.writeBytes(wire, frameLengths[i]);
        }
        assertThat(wire.isReadable()).isFalse();
        byte[] actual = new byte[joined.readableBytes()];
        joined.readBytes(actual);
        assertThat(actual).isEqualTo(payload);
        wire.release();
        joined.release();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void encoderOutputDecodesBackToThePacket() {
        EmbeddedChannel out = new EmbeddedChannel(new PacketFrameEncoder());
        EmbeddedChannel in = new EmbeddedChannel(new PacketFrameDecoder(3 * MAX));
        byte[] payload = pattern(2 * MAX + 3);
        out.writeOutbound(new Packet(100, Unpooled.wrappedBuffer(payload)));
        for (ByteBuf b = out.readOutbound(); b != null; b = out.readOutbound()) {
            in.writeInbound(b);
        }
        Packet p = in.readInbound();
        assertThat(p.sequenceId()).isEqualTo(100);
        assertThat(p.lastSequenceId()).isEqualTo(102);
        byte[] actual = new byte[p.payload().readableBytes()];
        p.payload().readBytes(actual);
        assertThat(actual).isEqualTo(payload);
        p.release();
        assertThat(out.finish()).isFalse();
        assertThat(in.finish()).isFalse();
    }
}
