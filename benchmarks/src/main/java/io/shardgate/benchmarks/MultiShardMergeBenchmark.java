package io.shardgate.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.shardgate.merge.GroupedMerge;
import io.shardgate.merge.ShardResultMerger;
import io.shardgate.merge.StreamingMerge;
import io.shardgate.sharding.plan.MergeSpec;
import io.shardgate.sharding.plan.MergeSpec.Aggregate;
import io.shardgate.sharding.plan.MergeSpec.Column;
import io.shardgate.sharding.plan.MergeSpec.Function;
import io.shardgate.sharding.plan.MergeSpec.SortKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The router's merge of four shards' result streams ({@link ShardResultStreams}, 1000 rows each),
 * as a scatter runs it: each shard's bytes arrive in {@link #CHUNK}-byte socket reads, the shards
 * taking turns, and what the merge can decide goes out after each read.
 *
 * <ul>
 *   <li>{@code orderBy}: {@link StreamingMerge}, the k-way merge of {@code ORDER BY k, id} (rows
 *       compared on their decoded keys, copied out as they are), reading a shard only while
 *       {@code wantsMore} says so, as the scatter does;
 *   <li>{@code grouped}: {@link GroupedMerge} folding {@code GROUP BY g} with COUNT, SUM and MAX
 *       into 1000 groups, then writing the merged result;
 *   <li>{@code baselineCopy}: the same reads copied into an output buffer without decoding: the
 *       cost of moving the bytes, the floor of any merge.
 * </ul>
 *
 * One operation is one shard row (4000 per invocation), so the score is rows merged per second and
 * {@code gc.alloc.rate.norm} the bytes allocated per row. {@code protocol} is the result's row
 * format: text (COM_QUERY) or binary (prepared statements). The setup checks both answers byte for
 * byte against the buffered merge ({@link ShardResultMerger}) and counts their rows.
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar MultiShardMergeBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MultiShardMergeBenchmark {
    static final int ROWS = ShardResultStreams.SHARDS * ShardResultStreams.ROWS_PER_SHARD;
    /** One socket read: Netty's adaptive receive buffer settles at a few KiB to 64 KiB. */
    static final int CHUNK = 16 * 1024;

    private static final int STATUS = 0x0002;
    private static final long MAX_BYTES = 64L << 20;
    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    /** ORDER BY k, id over (id, k, c). */
    static final MergeSpec ORDER_BY = new MergeSpec(
            List.of(new SortKey(new Column(1, false), false), new SortKey(new Column(0, false), false)),
            List.of(),
            List.of(),
            false,
            -1,
            -1,
            0,
            false);

    static final MergeSpec GROUP_BY = new MergeSpec(
            List.of(),
            List.of(new Column(0, false)),
            List.of(
                    new Aggregate(Function.COUNT, new Column(1, false), null),
                    new Aggregate(Function.SUM, new Column(2, false), null),
                    new Aggregate(Function.MAX, new Column(3, false), null)),
            false,
            -1,
            -1,
            0,
            false);

    @Param({"text", "binary"})
    public String protocol;

    private ByteBuf[] sorted;
    private ByteBuf[] grouped;

    @Setup
    public void setUp() {
        boolean binary = binary();
        sorted = direct(ShardResultStreams.sortedRows(binary));
        grouped = direct(ShardResultStreams.groupedRows(binary));
        check();
    }

    @TearDown
    public void tearDown() {
        for (ByteBuf b : sorted) {
            b.release();
        }
        for (ByteBuf b : grouped) {
            b.release();
        }
    }

    /** Returns the bytes sent to the client. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long orderBy() {
        return orderBy(null);
    }

    /** Returns the bytes of the merged result. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long grouped() {
        ByteBuf result = groupedAnswer();
        try {
            return result.readableBytes();
        } finally {
            result.release();
        }
    }

    /** The ORDER BY streams' reads copied out in the same turns; returns the bytes copied. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long baselineCopy() {
        ByteBuf out = ALLOC.buffer(CHUNK);
        long copied = 0;
        try {
            int[] at = new int[sorted.length];
            while (!allRead(at, sorted)) {
                for (int s = 0; s < sorted.length; s++) {
                    if (at[s] < sorted[s].writerIndex()) {
                        int n = Math.min(CHUNK, sorted[s].writerIndex() - at[s]);
                        ByteBuf read = sorted[s].retainedSlice(at[s], n);
                        out.clear().writeBytes(read);
                        read.release();
                        at[s] += n;
                        copied += n;
                    }
                }
            }
            return copied;
        } finally {
            out.release();
        }
    }

    /**
     * Feeds the sorted streams as the scatter does (a read per shard in turn while the merge wants
     * more, polling after each); returns the bytes sent, copied into {@code answer} unless null.
     */
    private long orderBy(ByteBuf answer) {
        StreamingMerge merge = new StreamingMerge(ALLOC, sorted.length, ORDER_BY, -1, -1, binary(), true, MAX_BYTES);
        long sent = 0;
        try {
            int[] at = new int[sorted.length];
            boolean fed = true;
            while (fed) {
                fed = false;
                for (int s = 0; s < sorted.length; s++) {
                    if (at[s] < sorted[s].writerIndex() && merge.wantsMore(s)) {
                        int n = Math.min(CHUNK, sorted[s].writerIndex() - at[s]);
                        merge.addAndRelease(s, sorted[s].retainedSlice(at[s], n));
                        at[s] += n;
                        fed = true;
                        sent += drain(merge, false, answer);
                    }
                }
                if (!fed && !allRead(at, sorted)) {
                    throw new IllegalStateException("no shard may be read and the merge sends nothing");
                }
            }
            sent += drain(merge, true, answer);
            if (!merge.complete()) {
                throw new IllegalStateException("the merge did not complete");
            }
            return sent;
        } finally {
            merge.close();
        }
    }

    /** The grouped streams folded read by read; the merged result, which the caller releases. */
    private ByteBuf groupedAnswer() {
        GroupedMerge merge = new GroupedMerge(ALLOC, grouped.length, GROUP_BY, -1, -1, binary(), true, MAX_BYTES);
        try {
            int[] at = new int[grouped.length];
            while (!allRead(at, grouped)) {
                for (int s = 0; s < grouped.length; s++) {
                    if (at[s] < grouped[s].writerIndex()) {
                        int n = Math.min(CHUNK, grouped[s].writerIndex() - at[s]);
                        merge.addAndRelease(s, grouped[s].retainedSlice(at[s], n));
                        at[s] += n;
                    }
                }
            }
            if (merge.overBudget()) {
                throw new IllegalStateException("the grouped merge gave up over its byte budget");
            }
            return merge.result(STATUS);
        } finally {
            merge.close();
        }
    }

    /**
     * Checks both merges against the buffered merge ({@link ShardResultMerger}, the reference the
     * router's tests hold the streaming merges to): byte for byte the same answer, with every row.
     */
    private void check() {
        for (boolean ordered : new boolean[] {true, false}) {
            ByteBuf[] streams = ordered ? sorted : grouped;
            List<ByteBuf> whole = new ArrayList<>();
            for (ByteBuf b : streams) {
                whole.add(b.duplicate());
            }
            ByteBuf want = ShardResultMerger.merge(
                    ALLOC, whole, ordered ? ORDER_BY : GROUP_BY, -1, -1, binary(), true, STATUS);
            ByteBuf got = ALLOC.buffer();
            try {
                if (ordered) {
                    long sent = orderBy(got);
                    if (sent != got.readableBytes()) {
                        throw new IllegalStateException(
                                "orderBy counted " + sent + " bytes, sent " + got.readableBytes());
                    }
                } else {
                    ByteBuf result = groupedAnswer();
                    got.writeBytes(result);
                    result.release();
                }
                if (!ByteBufUtil.equals(want, got)) {
                    throw new IllegalStateException((ordered ? "ORDER BY" : "GROUP BY")
                            + ": the streamed answer differs from the buffered merge's");
                }
                int packets = packets(got);
                int expected = ordered ? ROWS + 5 : ShardResultStreams.ROWS_PER_SHARD + 6;
                if (packets != expected) {
                    throw new IllegalStateException((ordered ? "ORDER BY" : "GROUP BY") + ": " + packets
                            + " packets in the answer, expected " + expected);
                }
            } finally {
                want.release();
                got.release();
            }
        }
    }

    private static int packets(ByteBuf framed) {
        int n = 0;
        for (int at = framed.readerIndex(); at < framed.writerIndex(); n++) {
            at += 4 + framed.getUnsignedMediumLE(at);
        }
        return n;
    }

    boolean binary() {
        return switch (protocol) {
            case "text" -> false;
            case "binary" -> true;
            default -> throw new IllegalArgumentException("protocol " + protocol);
        };
    }

    /** Polls what the merge can send now, as the session writes it to the client; returns its bytes. */
    private static long drain(StreamingMerge merge, boolean allEnded, ByteBuf answer) {
        long bytes = 0;
        ByteBuf next;
        while ((next = merge.poll(CHUNK, allEnded, STATUS)) != null) {
            bytes += next.readableBytes();
            if (answer != null) {
                answer.writeBytes(next);
            }
            next.release();
        }
        return bytes;
    }

    private static boolean allRead(int[] at, ByteBuf[] streams) {
        for (int s = 0; s < streams.length; s++) {
            if (at[s] < streams[s].writerIndex()) {
                return false;
            }
        }
        return true;
    }

    private static ByteBuf[] direct(List<byte[]> responses) {
        ByteBuf[] out = new ByteBuf[responses.size()];
        for (int i = 0; i < out.length; i++) {
            byte[] bytes = responses.get(i);
            out[i] = ALLOC.directBuffer(bytes.length).writeBytes(bytes);
        }
        return out;
    }
}
