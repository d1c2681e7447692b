package io.shardgate.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PacketFrameDecoderTest {
    private static final int MAX = Frame.MAX_PAYLOAD;

    /** Frames {@code payload} by hand (not with the encoder under test elsewhere). */
    private static ByteBuf framed(int firstSequenceId, byte[] payload) {
        ByteBuf out = Unpooled.buffer();
        int offset = 0;
        int seq = firstSequenceId;
        while (true) {
            int n = Math.min(MAX, payload.length - offset);
            out.writeMediumLE(n).writeByte(seq & 0xFF).writeBytes(payload, offset, n);
            offset += n;
            seq++;
            if (n < MAX) {
                return out;
            }
        }
    }

    private static byte[] pattern(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + (i >>> 16));
        }
        return b;
    }

    private static byte[] bytesOf(Packet p) {
        byte[] b = new byte[p.payload().readableBytes()];
        p.payload().getBytes(p.payload().readerIndex(), b);
        return b;
    }

    @Test
    void decodesOneSmallPacketFedWhole() {
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameDecoder(1024));
        assertThat(ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {1, 0, 0, 0, 0x0E})))
                .isTrue();
        Packet p = ch.readInbound();
        assertThat(p.sequenceId()).isZero();
        assertThat(p.lastSequenceId()).isZero();
        assertThat(bytesOf(p)).containsExactly(0x0E);
        p.release();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void decodesEmptyPayload() {
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameDecoder(1024));
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 7}));
        Packet p = ch.readInbound();
        assertThat(p.sequenceId()).isEqualTo(7);
        assertThat(p.payload().readableBytes()).isZero();
        p.release();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void decodesPacketsFedByteByByte() {
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameDecoder(1024));
        ByteBuf wire = Unpooled.buffer();
        wire.writeBytes(framed(3, new byte[] {3, 'S', 'E', 'L'}));
        wire.writeBytes(framed(4, new byte[0]));
        wire.writeBytes(framed(5, pattern(300)));
        while (wire.isReadable()) {
            ch.writeInbound(wire.readRetainedSlice(1));
        }
        wire.release();
        Packet a = ch.readInbound();
        Packet b = ch.readInbound();
        Packet c = ch.readInbound();
        assertThat(bytesOf(a)).containsExactly(3, 'S', 'E', 'L');
        assertThat(b.sequenceId()).isEqualTo(4);
        assertThat(b.payload().readableBytes()).isZero();
        assertThat(bytesOf(c)).isEqualTo(pattern(300));
        assertThat(c.sequenceId()).isEqualTo(5);
        a.release();
        b.release();
        c.release();
        assertThat(ch.<Object>readInbound()).isNull();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void decodesPacketsSplitAcrossReadsAtEveryPosition() {
        ByteBuf one = framed(0, pattern(40));
        ByteBuf two = framed(1, pattern(9));
        byte[] wire = new byte[one.readableBytes() + two.readableBytes()];
        one.readBytes(wire, 0, one.readableBytes());
        two.readBytes(wire, wire.length - two.readableBytes(), two.readableBytes());
        for (int cut = 0; cut <= wire.length; cut++) {
            EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameDecoder(1024));
            ch.writeInbound(Unpooled.wrappedBuffer(wire, 0, cut));
            ch.writeInbound(Unpooled.wrappedBuffer(wire, cut, wire.length - cut));
            Packet a = ch.readInbound();
            Packet b = ch.readInbound();
            assertThat(bytesOf(a)).as("cut %d", cut).isEqualTo(pattern(40));
            assertThat(bytesOf(b)).as("cut %d", cut).isEqualTo(pattern(9));
            assertThat(b.sequenceId()).isEqualTo(1);
            a.release();
            b.release();
            assertThat(ch.finish()).isFalse();
        }
    }

    @Test
    void singleFramePacketIsASliceNotACopy() {
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameDecoder(1024));
        ByteBuf wire = framed(0, pattern(100));
        ch.writeInbound(wire);
        Packet p = ch.readInbound();
        // a retained slice shares memory with the cumulation: its unwrapped buffer is not the payload itself
        assertThat(p.payload().unwrap()).isNotNull();
        p.release();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void joinsPayloadOfExactlyMaxPayloadWithTerminatingEmptyFrame() {
        assertJoins(MAX, 2);
    }

    @Test
    void joinsPayloadOfMaxPayloadPlusOne() {
        assertJoins(MAX + 1, 2);
    }

    @Test
    void joinsPayloadOfTwiceMaxPayload() {
        assertJoins(2 * MAX, 3);
    }

    @Test
    void decodesPayloadJustBelowSplit() {
        assertJoins(MAX - 1, 1);
    }

    private static void assertJoins(int length, int frames) {
        byte[] payload = pattern(length);
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameDecoder(64 * 1024 * 1024));
        ByteBuf wire = framed(254, payload);
        assertThat(wire.readableBytes()).isEqualTo(length + 4 * frames);
        // feed in uneven chunks so frame boundaries fall inside reads
        while (wire.isReadable()) {
            ch.writeInbound(wire.readRetainedSlice(Math.min(wire.readableBytes(), 5_000_011)));
        }
        wire.release();
        Packet p = ch.readInbound();
        assertThat(p.sequenceId()).isEqualTo(254);
        assertThat(p.lastSequenceId()).isEqualTo((254 + frames - 1) & 0xFF);
        assertThat(bytesOf(p)).isEqualTo(payload);
        p.release();
        assertThat(ch.<Object>readInbound()).isNull();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void oversizedPacketFiresTypedErrorOnceThenNextPacketDecodes() {
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameDecoder(10));
        ByteBuf wire = Unpooled.buffer();
        wire.writeBytes(framed(0, new byte[] {1}));
        wire.writeBytes(framed(0, pattern(11)));
        wire.writeBytes(framed(0, new byte[] {2, 3}));
        assertThatThrownBy(() -> ch.writeInbound(wire)).isInstanceOfSatisfying(PacketTooLargeException.class, e -> {
            assertThat(e.length()).isEqualTo(11);
            assertThat(e.maxAllowedPacket()).isEqualTo(10);
        });
        Packet first = ch.readInbound();
        Packet next = ch.readInbound();
        assertThat(bytesOf(first)).containsExactly(1);
        assertThat(bytesOf(next)).containsExactly(2, 3);
        first.release();
        next.release();
        ch.checkException();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void oversizedPacketIsDiscardedWhileItStreamsIn() {
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameDecoder(10));
        ByteBuf big = framed(0, pattern(1000));
        List<Throwable> errors = new ArrayList<>();
        while (big.isReadable()) {
            try {
                ch.writeInbound(big.readRetainedSlice(Math.min(big.readableBytes(), 7)));
            } catch (PacketTooLargeException e) {
                errors.add(e);
            }
        }
        big.release();
        assertThat(errors).hasSize(1);
        ch.writeInbound(framed(1, new byte[] {9}));
        Packet p = ch.readInbound();
        assertThat(bytesOf(p)).containsExactly(9);
        assertThat(p.sequenceId()).isEqualTo(1);
        p.release();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void oversizedSplitPacketDiscardsAllItsFrames() {
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameDecoder(MAX + 10));
        ByteBuf wire = framed(0, pattern(2 * MAX + 5));
        wire.writeBytes(framed(0, new byte[] {4, 2}));
        List<PacketTooLargeException> errors = new ArrayList<>();
        while (wire.isReadable()) {
            try {
                ch.writeInbound(wire.readRetainedSlice(Math.min(wire.readableBytes(), 3_000_000)));
            } catch (PacketTooLargeException e) {
                errors.add(e);
            }
        }
        wire.release();
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0).length()).isEqualTo(2L * MAX);
        Packet p = ch.readInbound();
        assertThat(bytesOf(p)).containsExactly(4, 2);
        p.release();
        assertThat(ch.<Object>readInbound()).isNull();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void releasesPartlyJoinedPayloadWhenChannelCloses() {
        EmbeddedChannel ch = new EmbeddedChannel(new PacketFrameDecoder(64 * 1024 * 1024));
        ByteBuf wire = framed(0, pattern(MAX + 100));
        ch.writeInbound(wire.readRetainedSlice(MAX + 4 + 10));
        wire.release();
        assertThat(ch.<Object>readInbound()).isNull();
        // PARANOID leak detection reports the composite if handlerRemoved does not release it
        assertThat(ch.finish()).isFalse();
    }
}
