package io.shardgate.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.shardgate.protocol.fixture.CapturedPackets;
import io.shardgate.protocol.fixture.CapturedPackets.Captured;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Real server responses, framed as they were on the wire, through the decoder and back through the encoder. */
class CapturedSessionFramingTest {
    private static final String[] FIXTURES = {
        "binary-resultset", "stmt-prepare-response", "text-resultset-mariadb-ext", "deprecate-eof-binary-resultset"
    };

    @ParameterizedTest
    @ValueSource(ints = {Integer.MAX_VALUE, 1, 2, 3, 7, 64})
    void decodesAndReencodesCapturedResponses(int chunk) {
        for (String name : FIXTURES) {
            List<Captured> packets = CapturedPackets.fromServer(name);
            byte[] wire = CapturedPackets.framed(packets);
            EmbeddedChannel in = new EmbeddedChannel(new PacketFrameDecoder(1 << 20));
            for (int i = 0; i < wire.length; i += chunk) {
                in.writeInbound(Unpooled.copiedBuffer(wire, i, Math.min(chunk, wire.length - i)));
            }
            EmbeddedChannel out = new EmbeddedChannel(new PacketFrameEncoder());
            for (Captured expected : packets) {
                Packet p = in.readInbound();
                assertThat(p.sequenceId()).isEqualTo(expected.sequenceId());
                byte[] actual = new byte[p.payload().readableBytes()];
                p.payload().getBytes(p.payload().readerIndex(), actual);
                assertThat(actual).as(name).isEqualTo(expected.payload());
                out.writeOutbound(p);
            }
            assertThat(in.<Object>readInbound()).isNull();
            ByteBuf reencoded = Unpooled.buffer();
            for (ByteBuf b = out.readOutbound(); b != null; b = out.readOutbound()) {
                reencoded.writeBytes(b);
                b.release();
            }
            assertThat(reencoded).isEqualTo(Unpooled.wrappedBuffer(wire));
            reencoded.release();
            assertThat(in.finish()).isFalse();
            assertThat(out.finish()).isFalse();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void decodesCapturedResponsesSplitAtRandomPoints(long seed) {
        Random random = new Random(seed);
        List<Captured> packets = CapturedPackets.fromServer("binary-resultset");
        byte[] wire = CapturedPackets.framed(packets);
        EmbeddedChannel in = new EmbeddedChannel(new PacketFrameDecoder(1 << 20));
        int i = 0;
        while (i < wire.length) {
            int n = Math.min(wire.length - i, 1 + random.nextInt(40));
            in.writeInbound(Unpooled.copiedBuffer(wire, i, n));
            i += n;
        }
        for (Captured expected : packets) {
            Packet p = in.readInbound();
            assertThat(p.payload()).isEqualTo(Unpooled.wrappedBuffer(expected.payload()));
            p.release();
        }
        assertThat(in.finish()).isFalse();
    }
}
