package io.shardgate.merge;

import static io.shardgate.merge.ShardResponses.bigint;
import static io.shardgate.merge.ShardResponses.dbl;
import static io.shardgate.merge.ShardResponses.decimal;
import static io.shardgate.merge.ShardResponses.integer;
import static io.shardgate.merge.ShardResponses.row;
import static io.shardgate.merge.ShardResponses.varchar;
import static io.shardgate.merge.ShardResponses.weights;
import static io.shardgate.merge.ShardResponses.withGeneralCiWeights;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.sharding.plan.MergeSpec;
import io.shardgate.sharding.plan.MergeSpec.Aggregate;
import io.shardgate.sharding.plan.MergeSpec.Column;
import io.shardgate.sharding.plan.MergeSpec.Function;
import io.shardgate.sharding.plan.MergeSpec.SortKey;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The incremental grouped merge fed the shards' bytes cut at random places and interleaved as a
 * busy network would deliver them: its answer must be byte for byte the buffered merge's
 * ({@link ShardResultMerger}) for GROUP BY, aggregates, COUNT/SUM/AVG(DISTINCT) and DISTINCT, with
 * ORDER BY and LIMIT, in both protocols; it must give up beyond its byte budget, and release every
 * byte it was given.
 */
class GroupedMergeTest {
    private static final int STATUS = 0x0002;
    private static final long MAX_BYTES = 1 << 20;
    private static final String[] KEYS = {"a", "A", "b", "B ", "c", "d", "e"};
    private ShardResponses shards;

    @AfterEach
    void release() {
        if (shards != null) {
            shards.releaseAll();
        }
    }

    static Stream<Arguments> protocols() {
        return Stream.of(
                Arguments.of(false, false),
                Arguments.of(false, true),
                Arguments.of(true, false),
                Arguments.of(true, true));
    }

    /**
     * g (utf8mb4_general_ci), COUNT, SUM(decimal), SUM(double), MIN(s), MAX(s), then hidden: x and
     * the weight and pad columns of g, MIN(s) and MAX(s).
     */
    private static List<ColumnDefinition41> columns() {
        return List.of(
                varchar("g"),
                bigint("COUNT(*)"),
                decimal("SUM(d)", 34, 2),
                dbl("SUM(f)"),
                varchar("MIN(s)"),
                varchar("MAX(s)"),
                integer("x"),
                weights("WEIGHT_STRING(g)"),
                weights("pad g"),
                weights("WEIGHT_STRING(MIN(s))"),
                weights("pad MIN(s)"),
                weights("WEIGHT_STRING(MAX(s))"),
                weights("pad MAX(s)"));
    }

    /** A row of {@link #columns} from its client cells and x, with the weights a shard sends. */
    private static List<Object> shardRow(Object... cells) {
        return withGeneralCiWeights(row(cells), 0, 4, 5);
    }

    private static Column col(int index) {
        return new Column(index, false);
    }

    private static MergeSpec spec(
            List<SortKey> order, List<Column> group, List<Aggregate> aggregates, boolean distinct, boolean limit) {
        return new MergeSpec(
                order,
                group,
                aggregates,
                distinct,
                limit ? 0 : -1,
                limit ? 1 : -1,
                7,
                false,
                null,
                List.of(),
                List.of(
                        new MergeSpec.Weights(col(0), new Column(1, true), new Column(2, true)),
                        new MergeSpec.Weights(col(4), new Column(3, true), new Column(4, true)),
                        new MergeSpec.Weights(col(5), new Column(5, true), new Column(6, true))),
                false,
                List.of());
    }

    /** The statement families a grouped merge serves, over {@link #columns}. */
    private static List<MergeSpec> specs() {
        List<Aggregate> aggregates = List.of(
                new Aggregate(Function.COUNT, col(1), null),
                new Aggregate(Function.SUM, col(2), null),
                new Aggregate(Function.SUM, col(3), null),
                new Aggregate(Function.MIN, col(4), null),
                new Aggregate(Function.MAX, col(5), null));
        List<Aggregate> distinctCount = List.of(
                new Aggregate(Function.COUNT_DISTINCT, col(1), new Column(0, true)),
                new Aggregate(Function.SUM, col(3), null),
                new Aggregate(Function.MAX, col(5), null));
        List<Aggregate> distinctSums = List.of(
                new Aggregate(Function.SUM_DISTINCT, col(2), new Column(0, true)),
                new Aggregate(Function.AVG_DISTINCT, col(3), new Column(0, true)));
        return List.of(
                spec(List.of(), List.of(col(0)), aggregates, false, false),
                spec(List.of(new SortKey(col(3), true)), List.of(col(0)), aggregates, false, true),
                spec(List.of(), List.of(), aggregates, false, false),
                spec(List.of(), List.of(col(0)), distinctCount, false, false),
                spec(List.of(), List.of(), distinctCount, false, false),
                spec(List.of(), List.of(col(0)), distinctSums, false, false),
                spec(List.of(), List.of(), List.of(), true, false),
                spec(List.of(new SortKey(col(4), false)), List.of(), List.of(), true, true));
    }

    /** Three shards of random partial rows; groups repeat within and across shards. */
    private List<ByteBuf> randomShards(Random random) {
        List<ByteBuf> out = new ArrayList<>();
        for (int s = 0; s < 3; s++) {
            List<List<Object>> rows = new ArrayList<>();
            int n = random.nextInt(5) == 0 ? 0 : random.nextInt(60);
            for (int i = 0; i < n; i++) {
                rows.add(shardRow(
                        KEYS[random.nextInt(KEYS.length)],
                        (long) random.nextInt(100),
                        random.nextInt(8) == 0 ? null : BigDecimal.valueOf(random.nextInt(100_000) - 50_000, 2),
                        random.nextInt(8) == 0 ? null : random.nextDouble() * 1e6 / 7,
                        random.nextInt(8) == 0 ? null : KEYS[random.nextInt(KEYS.length)] + random.nextInt(3),
                        random.nextInt(8) == 0 ? null : KEYS[random.nextInt(KEYS.length)] + random.nextInt(3),
                        random.nextInt(6) == 0 ? null : (long) random.nextInt(20)));
            }
            out.add(shards.resultSet(columns(), rows, random.nextInt(3)));
        }
        return out;
    }

    @ParameterizedTest(name = "binary={0} deprecateEof={1}")
    @MethodSource("protocols")
    void answersByteForByteAsTheBufferedMergeWhateverTheChunking(boolean binary, boolean deprecateEof) {
        shards = new ShardResponses(binary, deprecateEof);
        Random random = new Random(11);
        for (int round = 0; round < 25; round++) {
            List<ByteBuf> responses = randomShards(random);
            List<MergeSpec> specs = specs();
            for (int i = 0; i < specs.size(); i++) {
                MergeSpec spec = specs.get(i);
                long offset = spec.offset() < 0 ? -1 : random.nextInt(3);
                long count = spec.count() < 0 ? -1 : random.nextInt(5);
                ByteBuf want = ShardResultMerger.merge(
                        ShardResponses.ALLOC, responses, spec, offset, count, binary, deprecateEof, STATUS);
                ByteBuf got = fold(responses, spec, offset, count, binary, deprecateEof, random, MAX_BYTES);
                try {
                    assertThat(ByteBufUtil.hexDump(got))
                            .as("round %d, spec %d", round, i)
                            .isEqualTo(ByteBufUtil.hexDump(want));
                } finally {
                    want.release();
                    got.release();
                }
                for (ByteBuf r : responses) {
                    assertThat(r.refCnt())
                            .as("every chunk handed over is released")
                            .isEqualTo(1);
                }
            }
        }
    }

    @Test
    void holdsOneCopyPerGroupNotTheRows() {
        shards = new ShardResponses(false, true);
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            rows.add(shardRow(KEYS[i % 3], 1L, BigDecimal.ONE, 1.0, "s", "s", (long) i));
        }
        List<ByteBuf> responses = List.of(shards.resultSet(columns(), rows), shards.resultSet(columns(), rows));
        long size = responses.get(0).readableBytes();
        // a DOUBLE sum keeps each shard row's addend (exact sums in shard order), so it is left out:
        // a real shard sends one row per group unless the merge groups by a DISTINCT argument too
        MergeSpec spec = spec(
                List.of(),
                List.of(col(0)),
                List.of(
                        new Aggregate(Function.COUNT, col(1), null),
                        new Aggregate(Function.SUM, col(2), null),
                        new Aggregate(Function.MIN, col(4), null),
                        new Aggregate(Function.MAX, col(5), null)),
                false,
                false);
        long budget = 64 * 1024;
        assertThat(size).as("one shard's rows alone exceed the budget").isGreaterThan(4 * budget);

        ByteBuf got = fold(responses, spec, -1, -1, false, true, new Random(5), budget);
        MergedResponse merged = MergedResponse.decodeAndRelease(got, false, true);

        assertThat(merged.rows()).hasSize(2); // a and A are one group under the collation, b another
        assertThat(merged.rows()).extracting(r -> r.get(1)).containsExactly(26_668L, 13_332L);
    }

    @Test
    void givesUpBeyondTheBudgetWithManyGroupsAndReleasesEverything() {
        shards = new ShardResponses(true, false);
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            rows.add(shardRow("group " + i, 1L, BigDecimal.ONE, 1.0, "s", "s", (long) i));
        }
        ByteBuf response = shards.resultSet(columns(), rows);
        GroupedMerge merge = new GroupedMerge(ShardResponses.ALLOC, 2, specs().get(0), -1, -1, true, false, 64 * 1024);
        try {
            for (int at = 0; at < response.writerIndex() && !merge.overBudget(); at += 1000) {
                merge.addAndRelease(0, response.retainedSlice(at, Math.min(1000, response.writerIndex() - at)));
            }
            assertThat(merge.overBudget()).isTrue();
            assertThat(merge.heldBytes()).isZero();
            ByteBuf late = response.retainedSlice(0, 10);
            merge.addAndRelease(1, late);
            assertThat(late.refCnt())
                    .as("bytes after giving up are dropped at once")
                    .isEqualTo(0);
        } finally {
            merge.close();
        }
        assertThat(response.refCnt()).isEqualTo(1);
    }

    @Test
    void aShardsErrWinsOverTheOthersRowsAsBuffered() {
        shards = new ShardResponses(false, false);
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            rows.add(shardRow(KEYS[i % KEYS.length], 1L, BigDecimal.ONE, 1.0, "s", "s", (long) i));
        }
        ErrPacket err = new ErrPacket(1317, "70100", "Query execution was interrupted");
        List<ByteBuf> responses = List.of(
                shards.resultSet(columns(), rows),
                shards.resultSetThenErr(columns(), rows, err),
                shards.err(1054, "42S22", "Unknown column"));
        MergeSpec spec = specs().get(0);
        ByteBuf want = ShardResultMerger.merge(ShardResponses.ALLOC, responses, spec, -1, -1, false, false, STATUS);
        ByteBuf got = fold(responses, spec, -1, -1, false, false, new Random(9), MAX_BYTES);
        try {
            assertThat(ByteBufUtil.hexDump(got)).isEqualTo(ByteBufUtil.hexDump(want));
        } finally {
            want.release();
            got.release();
        }
        responses.forEach(r -> assertThat(r.refCnt()).isEqualTo(1));
    }

    /** Feeds the responses in random chunks, shards interleaved at random; the answer once all ended. */
    private static ByteBuf fold(
            List<ByteBuf> responses,
            MergeSpec spec,
            long offset,
            long count,
            boolean binary,
            boolean deprecateEof,
            Random random,
            long maxBytes) {
        GroupedMerge merge = new GroupedMerge(
                ShardResponses.ALLOC, responses.size(), spec, offset, count, binary, deprecateEof, maxBytes);
        int[] at = new int[responses.size()];
        try {
            while (true) {
                List<Integer> open = new ArrayList<>();
                for (int s = 0; s < responses.size(); s++) {
                    if (at[s] < responses.get(s).writerIndex()) {
                        open.add(s);
                    }
                }
                if (open.isEmpty()) {
                    break;
                }
                int s = open.get(random.nextInt(open.size()));
                int size = random.nextInt(4) == 0 ? 1 : 1 + random.nextInt(3072);
                int n = Math.min(size, responses.get(s).writerIndex() - at[s]);
                merge.addAndRelease(s, responses.get(s).retainedSlice(at[s], n));
                at[s] += n;
                assertThat(merge.heldBytes()).isLessThanOrEqualTo(maxBytes);
            }
            assertThat(merge.overBudget()).isFalse();
            return merge.result(STATUS);
        } finally {
            merge.close();
        }
    }
}
