package io.shardgate.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.frame.PacketFrameEncoder;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@link PacketFrameEncoder} framing outbound {@link Packet}s: {@code rows-100} writes the 104
 * small packets of a 100-row text result (each copied behind its header), {@code blob-64k} one
 * 64 KiB packet (header buffer plus a retained slice, no copy). The baseline writes the same
 * packets through the same pipeline without the encoder.
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar PacketFrameEncoderBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PacketFrameEncoderBenchmark {
    @Param({"rows-100", "blob-64k"})
    public String packets;

    private ByteBuf[] payloads;
    private CountingSink framed;
    private EmbeddedChannel encoding;
    private CountingSink passed;
    private EmbeddedChannel passing;

    @Setup
    public void setUp() {
        List<byte[]> bytes = switch (packets) {
            case "rows-100" -> SysbenchRangeResult.payloads(false);
            case "blob-64k" -> List.of(new byte[64 * 1024]);
            default -> throw new IllegalArgumentException("unknown packets " + packets);
        };
        payloads = new ByteBuf[bytes.size()];
        long payloadBytes = 0;
        for (int i = 0; i < payloads.length; i++) {
            payloads[i] = PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(bytes.get(i));
            payloadBytes += bytes.get(i).length;
        }
        framed = new CountingSink();
        encoding = new EmbeddedChannel(framed, new PacketFrameEncoder());
        passed = new CountingSink();
        passing = new EmbeddedChannel(passed);
        encode();
        if (framed.bytes != payloadBytes + 4L * payloads.length) {
            throw new IllegalStateException(
                    "framed " + framed.bytes + " bytes, expected " + (payloadBytes + 4L * payloads.length));
        }
    }

    @TearDown
    public void tearDown() {
        if (encoding.finishAndReleaseAll() | passing.finishAndReleaseAll()) {
            throw new IllegalStateException("a frame was left in a pipeline");
        }
        for (ByteBuf payload : payloads) {
            payload.release();
        }
    }

    /** Returns the number of buffers the encoder wrote. */
    @Benchmark
    public long encode() {
        return writeAll(encoding, framed);
    }

    @Benchmark
    public long baselinePipeline() {
        return writeAll(passing, passed);
    }

    private long writeAll(EmbeddedChannel channel, CountingSink sink) {
        long before = sink.messages;
        for (int i = 0; i < payloads.length; i++) {
            channel.write(new Packet(i + 1, payloads[i].retainedDuplicate()), channel.voidPromise());
        }
        return sink.messages - before;
    }
}
