package io.shardgate.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.shardgate.sharding.plan.MergeSpec;
import io.shardgate.sharding.plan.MergeSpec.Aggregate;
import io.shardgate.sharding.plan.MergeSpec.Column;
import io.shardgate.sharding.plan.MergeSpec.Function;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultMergeTest {
    private static final int STATUS = 0x0002;
    private static final MergeSpec COUNT = new MergeSpec(
            List.of(),
            List.of(),
            List.of(new Aggregate(Function.COUNT, new Column(0, false), null)),
            false,
            -1,
            -1,
            0,
            false);

    private static ResultMerge of(boolean select, MergeSpec spec, long maxBytes) {
        return ResultMerge.of(select, ShardResponses.ALLOC, 2, spec, -1, -1, false, false, maxBytes);
    }

    @Test
    void eachStatementGetsTheOneMergeItsPlanNeeds() {
        ResultMerge concat = of(true, MergeSpec.CONCAT, 1 << 20);
        ResultMerge count = of(true, COUNT, 1 << 20);
        ResultMerge write = of(false, MergeSpec.AFFECTED_ROWS, 1 << 20);
        ResultMerge show = of(false, MergeSpec.CONCAT, 1 << 20);
        try {
            assertThat(concat).isInstanceOf(StreamingMerge.class);
            assertThat(count).isInstanceOf(GroupedMerge.class);
            assertThat(write).isInstanceOf(BufferedMerge.class);
            assertThat(show).as("only a SELECT streams or folds").isInstanceOf(BufferedMerge.class);
        } finally {
            List.of(concat, count, write, show).forEach(ResultMerge::close);
        }
    }

    @Test
    void aBufferedMergeSumsTheShardsOks() {
        ShardResponses shards = new ShardResponses(false, false);
        ResultMerge.Whole merge = (ResultMerge.Whole) of(false, MergeSpec.AFFECTED_ROWS, 1 << 20);
        try {
            merge.addAndRelease(0, shards.ok(3, 0, 0, ""));
            merge.addAndRelease(1, shards.ok(4, 0, 0, ""));
            assertThat(merge.overBudget()).isFalse();
            MergedResponse answer = MergedResponse.decodeAndRelease(merge.result(STATUS), false, false);
            assertThat(answer.ok().affectedRows()).isEqualTo(7);
        } finally {
            merge.close();
        }
    }

    @Test
    void aBufferedMergeOverItsBudgetDropsWhatItHeldAndWhatFollows() {
        ShardResponses shards = new ShardResponses(false, false);
        ResultMerge.Whole merge = (ResultMerge.Whole) of(false, MergeSpec.AFFECTED_ROWS, 8);
        ByteBuf first = shards.ok(3, 0, 0, "Rows matched: 3  Changed: 3  Warnings: 0");
        ByteBuf second = shards.ok(4, 0, 0, "");
        merge.addAndRelease(0, first);
        assertThat(merge.overBudget()).isTrue();
        assertThat(merge.holds()).contains("whole results");
        merge.addAndRelease(1, second);
        assertThat(first.refCnt()).isZero();
        assertThat(second.refCnt()).isZero();
        merge.close();
        merge.close(); // idempotent
    }
}
