package io.shardgate.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.shardgate.protocol.codec.ResponseScanner;
import io.shardgate.protocol.codec.ResponseScanner.Response;
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
 * {@link ResponseScanner} finding the end of a COM_QUERY response in the relay path: {@code
 * rows-100} is the 100-row text result of {@link SysbenchRangeResult}, {@code ok} the OK packet
 * MariaDB sent for an INSERT (recorded, {@link RecordedResponse}); each with and without
 * CLIENT_DEPRECATE_EOF. The baseline walks the same frame headers and looks at nothing else, the
 * floor for any scanner.
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar ResponseScannerBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ResponseScannerBenchmark {
    @Param({"rows-100", "ok"})
    public String response;

    @Param({"true", "false"})
    public boolean deprecateEof;

    private ByteBuf wire;
    private ResponseScanner scanner;
    private long completed;

    @Setup
    public void setUp() {
        byte[] bytes = switch (response) {
            case "rows-100" -> SysbenchRangeResult.bytes(deprecateEof);
            case "ok" -> RecordedResponse.load("ok-insert", deprecateEof);
            default -> throw new IllegalArgumentException("unknown response " + response);
        };
        wire = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
        completed = 0;
        scanner = new ResponseScanner(deprecateEof, (statusFlags, error) -> {
            if (error) {
                throw new IllegalStateException("the response must not end with an error");
            }
            completed++;
        });
        int end = scan();
        if (end != wire.writerIndex() || completed != 1 || !scanner.idle() || baselineFrameWalk() != end) {
            throw new IllegalStateException(
                    "scanned to " + end + " of " + wire.writerIndex() + ", completed " + completed + " responses");
        }
    }

    @TearDown
    public void tearDown() {
        wire.release();
    }

    /** Returns the index up to which the response may be relayed. */
    @Benchmark
    public int scan() {
        scanner.expect(Response.RESULT_SET);
        return scanner.scan(wire);
    }

    @Benchmark
    public int baselineFrameWalk() {
        int i = wire.readerIndex();
        int end = wire.writerIndex();
        while (end - i >= 4) {
            i += 4 + wire.getUnsignedMediumLE(i);
        }
        return i;
    }
}
