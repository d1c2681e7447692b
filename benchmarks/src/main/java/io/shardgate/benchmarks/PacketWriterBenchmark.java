package io.shardgate.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ComQuery;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.net.PacketWriter;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@link PacketWriter#frame}, how the router frames what it generates: an OK packet to a client
 * ({@code ok}) and sysbench's point select as a COM_QUERY to a backend ({@code com-query}), each
 * into a fresh pooled buffer that is then released. The baseline writes the same payload into a
 * buffer of the same allocator without the frame header.
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar PacketWriterBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PacketWriterBenchmark {
    @Param({"ok", "com-query"})
    public String packet;

    private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    private Consumer<ByteBuf> payload;
    private int sizeHint;

    @Setup
    public void setUp() {
        Capabilities caps = new Capabilities(CapabilityFlags.CLIENT_PROTOCOL_41 | CapabilityFlags.CLIENT_DEPRECATE_EOF);
        switch (packet) {
            case "ok" -> {
                OkPacket ok = OkPacket.of(1, 0, ServerStatus.SERVER_STATUS_AUTOCOMMIT, 0);
                payload = out -> ok.write(out, caps);
                sizeHint = 16;
            }
            case "com-query" -> {
                ComQuery query = ComQuery.of(Statements.POINT_SELECT);
                payload = out -> query.write(out, caps);
                sizeHint = 64;
            }
            default -> throw new IllegalArgumentException("unknown packet " + packet);
        }
        int framed = frame();
        int bare = baselineUnframed();
        if (framed != bare + 4) {
            throw new IllegalStateException("frame of " + framed + " bytes for a payload of " + bare);
        }
    }

    /** Returns the frame's size. */
    @Benchmark
    public int frame() {
        ByteBuf buf = PacketWriter.frame(alloc, 1, sizeHint, payload);
        int size = buf.readableBytes();
        buf.release();
        return size;
    }

    @Benchmark
    public int baselineUnframed() {
        ByteBuf buf = alloc.ioBuffer(sizeHint);
        try {
            payload.accept(buf);
            return buf.readableBytes();
        } finally {
            buf.release();
        }
    }
}
