package io.shardgate.merge;

import static io.shardgate.merge.ShardResponses.integer;
import static io.shardgate.merge.ShardResponses.row;
import static io.shardgate.merge.ShardResponses.varchar;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.sharding.plan.MergeSpec;
import io.shardgate.sharding.plan.MergeSpec.Column;
import io.shardgate.sharding.plan.MergeSpec.SortKey;
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
 * The streamed merge fed the shards' bytes cut at random places and interleaved as a busy network
 * would deliver them: its answer must be the buffered merge's ({@link ShardResultMerger}) for ORDER
 * BY and LIMIT, the same rows for a concatenation, it must stop at LIMIT before the shards end,
 * keep its queues within bounds, and release every byte it was given.
 */
class StreamingMergeTest {
    private static final int STATUS = 0x0002;
    private static final long MAX_BYTES = 1 << 20;
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

    /** Three shards of random rows sorted by (k, id), k with NULLs and duplicates, id hidden or not. */
    private List<ByteBuf> sortedShards(Random random, List<ColumnDefinition41> cols) {
        List<ByteBuf> out = new ArrayList<>();
        for (int s = 0; s < 3; s++) {
            List<Object[]> rows = new ArrayList<>();
            int n = random.nextInt(40);
            for (int i = 0; i < n; i++) {
                Long k = random.nextInt(6) == 0 ? null : (long) random.nextInt(10);
                rows.add(new Object[] {"name-" + s + "-" + i, k, (long) (s * 1000 + i)});
            }
            rows.sort((a, b) -> {
                int c = a[1] == null
                        ? (b[1] == null ? 0 : -1)
                        : b[1] == null ? 1 : Long.compare((Long) a[1], (Long) b[1]);
                return c != 0 ? c : Long.compare((Long) a[2], (Long) b[2]);
            });
            List<List<Object>> encoded = new ArrayList<>();
            for (Object[] r : rows) {
                encoded.add(row(r));
            }
            out.add(shards.resultSet(cols, encoded, s));
        }
        return out;
    }

    private static List<ColumnDefinition41> columns() {
        return List.of(varchar("name"), integer("k"), integer("id"));
    }

    /** ORDER BY k, id with id hidden. */
    private static MergeSpec orderBy(int offsetSlot, int countSlot) {
        return new MergeSpec(
                List.of(new SortKey(new Column(1, false), false), new SortKey(new Column(0, true), false)),
                List.of(),
                List.of(),
                false,
                offsetSlot,
                countSlot,
                1,
                false);
    }

    @ParameterizedTest(name = "binary={0} deprecateEof={1}")
    @MethodSource("protocols")
    void ordersLikeTheBufferedMergeWhateverTheChunking(boolean binary, boolean deprecateEof) {
        shards = new ShardResponses(binary, deprecateEof);
        Random random = new Random(3);
        for (int round = 0; round < 30; round++) {
            List<ByteBuf> responses = sortedShards(random, columns());
            long offset = random.nextBoolean() ? -1 : random.nextInt(10);
            long count = random.nextBoolean() ? -1 : random.nextInt(30);
            MergeSpec spec = orderBy(offset < 0 ? -1 : 0, count < 0 ? -1 : 1);
            ByteBuf expected = ShardResultMerger.merge(
                    ShardResponses.ALLOC, responses, spec, offset, count, binary, deprecateEof, STATUS);
            MergedResponse want = MergedResponse.decodeAndRelease(expected, binary, deprecateEof);

            MergedResponse got = MergedResponse.decodeAndRelease(
                    stream(responses, spec, offset, count, binary, deprecateEof, random, MAX_BYTES),
                    binary,
                    deprecateEof);

            assertThat(got.rawRows())
                    .as("round %d: offset %d count %d", round, offset, count)
                    .containsExactlyElementsOf(want.rawRows());
            assertThat(got.columns()).isEqualTo(want.columns());
            if (count < 0) {
                // with LIMIT the answer may end before a shard's terminator (and its warnings) arrive
                assertThat(got.warnings()).isEqualTo(want.warnings());
            }
            for (ByteBuf r : responses) {
                assertThat(r.refCnt()).as("every chunk handed over is released").isEqualTo(1);
            }
        }
    }

    @ParameterizedTest(name = "binary={0} deprecateEof={1}")
    @MethodSource("protocols")
    void concatenatesEveryRowInArrivalOrder(boolean binary, boolean deprecateEof) {
        shards = new ShardResponses(binary, deprecateEof);
        Random random = new Random(7);
        List<ColumnDefinition41> cols = List.of(varchar("name"), integer("k"));
        List<ByteBuf> responses = new ArrayList<>();
        List<String> all = new ArrayList<>();
        for (int s = 0; s < 3; s++) {
            List<List<Object>> rows = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                rows.add(row("r" + s + "-" + i, i % 3 == 0 ? null : (long) i));
                all.add("r" + s + "-" + i);
            }
            responses.add(shards.resultSet(cols, rows, 0));
        }

        MergedResponse got = MergedResponse.decodeAndRelease(
                stream(responses, MergeSpec.CONCAT, -1, -1, binary, deprecateEof, random, MAX_BYTES),
                binary,
                deprecateEof);

        assertThat(got.rows())
                .extracting(r -> new String((byte[]) r.get(0), java.nio.charset.StandardCharsets.UTF_8))
                .containsExactlyInAnyOrderElementsOf(all);
        for (ByteBuf r : responses) {
            assertThat(r.refCnt()).isEqualTo(1);
        }
    }

    @Test
    void limitCompletesTheAnswerBeforeTheShardsEndAndDropsWhatFollows() {
        shards = new ShardResponses(false, true);
        List<List<Object>> rows = new ArrayList<>();
        for (long i = 0; i < 1000; i++) {
            rows.add(row("n" + i, i, i));
        }
        List<ByteBuf> responses = List.of(shards.resultSet(columns(), rows, 0), shards.resultSet(columns(), rows, 0));
        StreamingMerge merge =
                new StreamingMerge(ShardResponses.ALLOC, 2, orderBy(-1, 0), -1, 3, false, true, MAX_BYTES);
        ByteBuf out = ShardResponses.ALLOC.buffer();
        try {
            // each shard delivers its first 400 bytes: enough for the header and a few rows
            for (int s = 0; s < 2; s++) {
                merge.addAndRelease(s, responses.get(s).retainedSlice(0, 400));
            }
            drain(merge, out, false);
            assertThat(merge.complete()).as("3 rows were enough").isTrue();
            ByteBuf rest = responses.get(0).retainedSlice(400, 1000);
            merge.addAndRelease(0, rest);
            assertThat(rest.refCnt())
                    .as("bytes after the answer are dropped at once")
                    .isZero();
            assertThat(merge.wantsMore(1))
                    .as("a complete merge reads the rest to drop it")
                    .isTrue();
            assertThat(merge.poll(1 << 16, false, STATUS)).isNull();
        } finally {
            merge.close();
        }
        MergedResponse got = MergedResponse.decodeAndRelease(out, false, true);
        assertThat(got.rows()).extracting(r -> r.get(1)).containsExactly(0L, 0L, 1L);
        responses.forEach(r -> assertThat(r.refCnt()).isEqualTo(1));
    }

    @Test
    void aShardAheadOfTheOthersPausesAtItsQueueLimitAndResumesAsRowsGoOut() {
        shards = new ShardResponses(false, false);
        List<List<Object>> rows = new ArrayList<>();
        for (long i = 0; i < 5000; i++) {
            rows.add(row("some name " + i, i, i));
        }
        ByteBuf fast = shards.resultSet(columns(), rows, 0);
        ByteBuf slow = shards.resultSet(columns(), rows, 0);
        long maxBytes = 64 * 1024;
        StreamingMerge merge =
                new StreamingMerge(ShardResponses.ALLOC, 2, orderBy(-1, -1), -1, -1, false, false, maxBytes);
        ByteBuf out = ShardResponses.ALLOC.buffer();
        try {
            int at = 0;
            while (merge.wantsMore(0) && at < fast.writerIndex()) {
                int n = Math.min(4096, fast.writerIndex() - at);
                merge.addAndRelease(0, fast.retainedSlice(at, n));
                at += n;
                drain(merge, out, false);
            }
            assertThat(at).as("the fast shard paused before its end").isLessThan(fast.writerIndex());
            assertThat(merge.heldBytes()).isLessThanOrEqualTo(maxBytes);
            assertThat(out.readableBytes())
                    .as("nothing can go out while the slow shard said nothing")
                    .isZero();

            // the slow shard's rows arrive: rows go out and both shards read on, within the bound
            List<ByteBuf> both = List.of(fast, slow);
            int[] fed = {at, 0};
            while (fed[0] < fast.writerIndex() || fed[1] < slow.writerIndex()) {
                boolean progress = false;
                for (int s = 0; s < 2; s++) {
                    if (merge.wantsMore(s) && fed[s] < both.get(s).writerIndex()) {
                        int n = Math.min(4096, both.get(s).writerIndex() - fed[s]);
                        merge.addAndRelease(s, both.get(s).retainedSlice(fed[s], n));
                        fed[s] += n;
                        progress = true;
                        drain(merge, out, false);
                        assertThat(merge.heldBytes()).isLessThanOrEqualTo(maxBytes);
                    }
                }
                assertThat(progress).as("some shard may always be read").isTrue();
            }
            drain(merge, out, true);
            assertThat(merge.complete()).isTrue();
        } finally {
            merge.close();
        }
        MergedResponse got = MergedResponse.decodeAndRelease(out, false, false);
        assertThat(got.rows()).hasSize(10_000);
        assertThat(got.rows().get(9_999).get(1)).isEqualTo(4999L);
    }

    @Test
    void aRowLargerThanTheQueueIsStillReadWhole() {
        shards = new ShardResponses(false, true);
        String big = "x".repeat(40_000);
        ByteBuf a = shards.resultSet(columns(), List.of(row(big, 1L, 1L), row("small", 2L, 2L)), 0);
        ByteBuf b = shards.resultSet(columns(), List.of(row("b", 3L, 3L)), 0);
        StreamingMerge merge =
                new StreamingMerge(ShardResponses.ALLOC, 2, orderBy(-1, -1), -1, -1, false, true, 64 * 1024);
        ByteBuf out = ShardResponses.ALLOC.buffer();
        try {
            int at = 0;
            while (at < 20_000) {
                merge.addAndRelease(0, a.retainedSlice(at, 1000));
                at += 1000;
                drain(merge, out, false);
                assertThat(merge.wantsMore(0))
                        .as("half a row never pauses its shard")
                        .isTrue();
            }
            merge.addAndRelease(0, a.retainedSlice(at, a.writerIndex() - at));
            merge.addAndRelease(1, b.retainedSlice());
            drain(merge, out, true);
            assertThat(merge.complete()).isTrue();
        } finally {
            merge.close();
        }
        MergedResponse got = MergedResponse.decodeAndRelease(out, false, true);
        assertThat(got.rows()).extracting(r -> r.get(1)).containsExactly(1L, 2L, 3L);
    }

    @Test
    void holdingMoreThanMaxBytesAnswersOutOfResources() {
        shards = new ShardResponses(false, false);
        List<List<Object>> rows = new ArrayList<>();
        for (long i = 0; i < 20_000; i++) {
            rows.add(row("row " + i, i, i));
        }
        ByteBuf a = shards.resultSet(columns(), rows, 0);
        assertThat((long) a.readableBytes())
                .as("more than the bound plus a read per shard")
                .isGreaterThan(64 * 1024 + 2 * StreamingMerge.READ_AHEAD_BYTES);
        ByteBuf b = shards.resultSet(columns(), List.of(), 0);
        long maxBytes = 64 * 1024;
        StreamingMerge merge =
                new StreamingMerge(ShardResponses.ALLOC, 2, orderBy(-1, -1), -1, -1, false, false, maxBytes);
        ByteBuf out = ShardResponses.ALLOC.buffer();
        try {
            // a caller that ignores wantsMore: the bound still holds
            merge.addAndRelease(0, a.retainedSlice());
            drain(merge, out, false);
            assertThat(merge.complete()).isTrue();
            merge.addAndRelease(1, b.retainedSlice());
        } finally {
            merge.close();
        }
        MergedResponse got = MergedResponse.decodeAndRelease(out, false, false);
        assertThat(got.err().code()).isEqualTo(ErrorCode.ER_OUT_OF_RESOURCES.code());
        assertThat(got.err().message()).contains("server.max_merge_bytes (65536 bytes)");
        assertThat(a.refCnt()).isEqualTo(1);
    }

    @Test
    void anErrOfOneShardIsTheAnswerWhenNoRowWasSent() {
        shards = new ShardResponses(false, true);
        ByteBuf ok = shards.resultSet(columns(), List.of(row("a", 1L, 1L)), 0);
        ByteBuf err = shards.err(1146, "42S02", "Table 'shop.t' doesn't exist");
        StreamingMerge merge =
                new StreamingMerge(ShardResponses.ALLOC, 2, orderBy(-1, -1), -1, -1, false, true, MAX_BYTES);
        ByteBuf out = ShardResponses.ALLOC.buffer();
        try {
            merge.addAndRelease(0, ok.retainedSlice());
            drain(merge, out, false);
            merge.addAndRelease(1, err.retainedSlice());
            drain(merge, out, false);
            assertThat(merge.complete()).isTrue();
        } finally {
            merge.close();
        }
        ErrPacket got = MergedResponse.decodeAndRelease(out, false, true).err();
        assertThat(got.code()).isEqualTo(1146);
        assertThat(got.message()).isEqualTo("Table 'shop.t' doesn't exist");
    }

    private static final ErrPacket OUT_OF_RANGE =
            new ErrPacket(1690, "22003", "BIGINT value is out of range in '-`t`.`id`'");

    /** Shard 0: rows k = 1, 2, 3; shard 1: the row k = 5, then (evaluating its next row) OUT_OF_RANGE. */
    private MergedResponse orderedWithFailedRow(long offset, long count) {
        shards = new ShardResponses(false, true);
        List<ByteBuf> responses = List.of(
                shards.resultSet(columns(), List.of(row("a", 1L, 1L), row("b", 2L, 2L), row("c", 3L, 3L)), 0),
                shards.resultSetThenErr(columns(), List.of(row("e", 5L, 5L)), OUT_OF_RANGE));
        MergeSpec spec = orderBy(offset < 0 ? -1 : 0, count < 0 ? -1 : 1);
        return MergedResponse.decodeAndRelease(
                stream(responses, spec, offset, count, false, true, new Random(5), MAX_BYTES), false, true);
    }

    @Test
    void aLimitMetBeforeTheRowAShardFailedOnIsAnsweredInFull() {
        // MySQL sorts the failing row (after k = 5) past LIMIT 3 and never evaluates it
        MergedResponse got = orderedWithFailedRow(-1, 3);
        assertThat(got.err()).isNull();
        assertThat(got.rows()).extracting(r -> new String((byte[]) r.get(0))).containsExactly("a", "b", "c");
    }

    @Test
    void aRowAShardFailedOnThatTheMergeNeedsUnderALimitIsRefused() {
        // the 5th row is the failing row or one before it: MySQL may or may not evaluate it
        MergedResponse got = orderedWithFailedRow(-1, 5);
        assertThat(got.err().code()).isEqualTo(ErrorCode.ER_NOT_SUPPORTED_YET.code());
        assertThat(got.err().message())
                .contains("a LIMIT or OFFSET on several shards where a shard failed on a row (1690: BIGINT value");
    }

    @Test
    void anOffsetOverTheRowAShardFailedOnIsRefused() {
        assertThat(orderedWithFailedRow(4, 1).err().code()).isEqualTo(ErrorCode.ER_NOT_SUPPORTED_YET.code());
    }

    @Test
    void withoutALimitTheShardsErrorIsTheAnswerAfterTheRowsBeforeIt() {
        // MySQL evaluates every row: it fails too, after sending the rows sorted before the failing one
        MergedResponse got = orderedWithFailedRow(-1, -1);
        assertThat(got.err().code()).isEqualTo(1690);
        assertThat(got.err().message()).isEqualTo(OUT_OF_RANGE.message());
        assertThat(got.rows()).extracting(r -> new String((byte[]) r.get(0))).containsExactly("a", "b", "c", "e");
    }

    @Test
    void shardsFailingOnTheirDataWithDifferentCodesAreRefused() {
        shards = new ShardResponses(false, true);
        List<ByteBuf> responses = List.of(
                shards.resultSetThenErr(columns(), List.of(row("a", 1L, 1L)), OUT_OF_RANGE),
                shards.err(1264, "22003", "Out of range value for column 'd' at row 2"));
        MergedResponse got = MergedResponse.decodeAndRelease(
                stream(responses, MergeSpec.CONCAT, -1, -1, false, true, new Random(6), MAX_BYTES), false, true);
        assertThat(got.err().code()).isEqualTo(ErrorCode.ER_NOT_SUPPORTED_YET.code());
        assertThat(got.err().message()).contains("different errors (1690: ").contains("; 1264: ");
    }

    @Test
    void differentColumnCountsAreAnErrNotAWrongAnswer() {
        shards = new ShardResponses(false, true);
        ByteBuf a = shards.resultSet(columns(), List.of(), 0);
        ByteBuf b = shards.resultSet(List.of(integer("k")), List.of(), 0);
        StreamingMerge merge =
                new StreamingMerge(ShardResponses.ALLOC, 2, MergeSpec.CONCAT, -1, -1, false, true, MAX_BYTES);
        ByteBuf out = ShardResponses.ALLOC.buffer();
        try {
            merge.addAndRelease(0, a.retainedSlice());
            merge.addAndRelease(1, b.retainedSlice());
            drain(merge, out, true);
        } finally {
            merge.close();
        }
        ErrPacket got = MergedResponse.decodeAndRelease(out, false, true).err();
        assertThat(got.code()).isEqualTo(ErrorCode.ER_UNKNOWN_ERROR.code());
        assertThat(got.message()).contains("shard 1 returned 3 columns, shard 2 returned 1");
    }

    /**
     * Feeds the responses in random chunks (1 byte to 3 KiB), the shards in random order, polling after
     * each chunk as the scatter does; returns the client's answer.
     */
    private static ByteBuf stream(
            List<ByteBuf> responses,
            MergeSpec spec,
            long offset,
            long count,
            boolean binary,
            boolean deprecateEof,
            Random random,
            long maxBytes) {
        StreamingMerge merge = new StreamingMerge(
                ShardResponses.ALLOC, responses.size(), spec, offset, count, binary, deprecateEof, maxBytes);
        ByteBuf out = ShardResponses.ALLOC.buffer();
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
                drain(merge, out, false);
            }
            drain(merge, out, true);
            assertThat(merge.complete()).isTrue();
            return out;
        } catch (RuntimeException | Error e) {
            out.release();
            throw e;
        } finally {
            merge.close();
        }
    }

    private static void drain(StreamingMerge merge, ByteBuf out, boolean allEnded) {
        ByteBuf next;
        while ((next = merge.poll(1024, allEnded, STATUS)) != null) {
            out.writeBytes(next);
            next.release();
        }
    }
}
