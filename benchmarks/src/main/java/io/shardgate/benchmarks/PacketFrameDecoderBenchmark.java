package io.shardgate.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.shardgate.protocol.frame.PacketFrameDecoder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@link PacketFrameDecoder} splitting a 100-row text result ({@link SysbenchRangeResult}, 104
 * packets, ~12.7 KiB) that arrives as one pooled direct buffer, as one socket read delivers it.
 * The baseline passes the same buffer through the same {@link EmbeddedChannel} pipeline without
 * the decoder, so the difference is the decoder's own cost.
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar PacketFrameDecoderBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PacketFrameDecoderBenchmark {
    private ByteBuf wire;
    private int packets;
    private CountingSink decoded;
    private EmbeddedChannel decoding;
    private CountingSink passed;
    private EmbeddedChannel passing;

    @Setup
    public void setUp() {
        byte[] bytes = SysbenchRangeResult.bytes(false);
        packets = SysbenchRangeResult.payloads(false).size();
        wire = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
        decoded = new CountingSink();
        decoding = new EmbeddedChannel(new PacketFrameDecoder(16 * 1024 * 1024), decoded);
        passed = new CountingSink();
        passing = new EmbeddedChannel(passed);
        long got = decode();
        if (got != packets || decoded.bytes != bytes.length - 4L * packets) {
            throw new IllegalStateException("decoded " + got + " packets of " + decoded.bytes + " bytes, expected "
                    + packets + " of " + (bytes.length - 4L * packets));
        }
    }

    @TearDown
    public void tearDown() {
        if (decoding.finishAndReleaseAll() | passing.finishAndReleaseAll()) {
            throw new IllegalStateException("a packet was left in a pipeline");
        }
        wire.release();
    }

    /** Returns the number of packets decoded. */
    @Benchmark
    public long decode() {
        long before = decoded.messages;
        decoding.writeInbound(wire.retainedDuplicate());
        return decoded.messages - before;
    }

    @Benchmark
    public long baselinePipeline() {
        long before = passed.messages;
        passing.writeInbound(wire.retainedDuplicate());
        return passed.messages - before;
    }
}
