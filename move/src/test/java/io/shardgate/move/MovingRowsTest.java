package io.shardgate.move;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.sharding.rule.BroadcastStrategy;
import io.shardgate.sharding.rule.HashStrategy;
import io.shardgate.sharding.rule.KeyHash;
import io.shardgate.sharding.rule.KeyType;
import io.shardgate.sharding.rule.RangeStrategy;
import io.shardgate.sharding.rule.SingleStrategy;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class MovingRowsTest {
    /** 16 buckets: 0-7 on 10, 8-15 on 20; the next version moves 12-15 to 30. */
    private static final HashStrategy RUNNING = hash(10, 10, 10, 10, 10, 10, 10, 10, 20, 20, 20, 20, 20, 20, 20, 20);

    private static final HashStrategy NEXT = hash(10, 10, 10, 10, 10, 10, 10, 10, 20, 20, 20, 20, 30, 30, 30, 30);

    @Test
    void aRowMovesExactlyWhenItsBucketLeavesTheSourceForTheTarget() {
        MovingRows moving = MovingRows.of(RUNNING, NEXT, 20, 30);
        LongStream.range(-500, 500).forEach(key -> {
            int bucket = KeyHash.bucket(key, 16);
            assertThat(moving.moves(key)).as("key %d in bucket %d", key, bucket).isEqualTo(bucket >= 12);
        });
        assertThat(moving.moves(null))
                .as("a NULL key is placed nowhere: it never moves")
                .isFalse();
        assertThat(moving.moves("12")).as("read as the router reads a key").isEqualTo(KeyHash.bucket(12, 16) >= 12);
        assertThat(moving.byKey()).isTrue();
        assertThat(moving.keyColumn()).isEqualTo("id");
    }

    @Test
    void aRangeSplitMovesTheUpperPart() {
        RangeStrategy running = new RangeStrategy("id", List.of(new RangeStrategy.Shard(1000L, 10), shard(null, 20)));
        RangeStrategy next =
                new RangeStrategy("id", List.of(new RangeStrategy.Shard(1000L, 10), shard(5000L, 20), shard(null, 30)));
        MovingRows moving = MovingRows.of(running, next, 20, 30);
        assertThat(moving.moves(999L)).isFalse();
        assertThat(moving.moves(4999L)).isFalse();
        assertThat(moving.moves(5000L)).isTrue();
        assertThat(moving.moves(Long.MAX_VALUE)).isTrue();
    }

    @Test
    void aWholeTableMovesEveryRow() {
        MovingRows moving = MovingRows.of(new SingleStrategy(10), new SingleStrategy(30), 10, 30);
        assertThat(moving.byKey()).isFalse();
        assertThat(moving.moves(null)).isTrue();
        assertThat(moving.keyColumn()).isNull();
    }

    @Test
    void changesThatAreNotMovesAreRefusedWithTheReason() {
        assertThatThrownBy(() -> MovingRows.of(RUNNING, NEXT, 20, 20)).hasMessageContaining("both hostgroup 20");
        assertThatThrownBy(() -> MovingRows.of(RUNNING, NEXT, 30, 20)).hasMessageContaining("holds no rows");
        assertThatThrownBy(() -> MovingRows.of(RUNNING, NEXT, 20, 40)).hasMessageContaining("no rows of the table");
        assertThatThrownBy(() -> MovingRows.of(new BroadcastStrategy(List.of(10)), new SingleStrategy(30), 10, 30))
                .hasMessageContaining("broadcast");
        assertThatThrownBy(() -> MovingRows.of(new SingleStrategy(20), NEXT, 20, 30))
                .hasMessageContaining("sharded and unsharded");
        assertThatThrownBy(() ->
                        MovingRows.of(RUNNING, new HashStrategy("other", KeyType.INTEGER, hostgroups(NEXT)), 20, 30))
                .hasMessageContaining("sharding key");
        assertThatThrownBy(() -> MovingRows.of(RUNNING, new RangeStrategy("id", List.of(shard(null, 30))), 20, 30))
                .hasMessageContaining("from hash to range");
    }

    private static RangeStrategy.Shard shard(Long below, int hostgroup) {
        return new RangeStrategy.Shard(below, hostgroup);
    }

    private static HashStrategy hash(int... bucketHostgroups) {
        return new HashStrategy("id", KeyType.INTEGER, bucketHostgroups);
    }

    private static int[] hostgroups(HashStrategy strategy) {
        int[] hostgroups = new int[strategy.buckets()];
        Arrays.setAll(hostgroups, strategy::hostgroupOfBucket);
        return hostgroups;
    }
}
