package io.shardgate.merge;

import static io.shardgate.merge.ShardResponses.column;
import static io.shardgate.merge.ShardResponses.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.type.ColumnFlags;
import io.shardgate.protocol.type.MySqlType;
import io.shardgate.sharding.plan.MergeExpression;
import io.shardgate.sharding.plan.MergeExpression.Arithmetic;
import io.shardgate.sharding.plan.MergeExpression.ColumnValue;
import io.shardgate.sharding.plan.MergeExpression.Operator;
import io.shardgate.sharding.plan.MergeSpec;
import io.shardgate.sharding.plan.MergeSpec.Aggregate;
import io.shardgate.sharding.plan.MergeSpec.Column;
import io.shardgate.sharding.plan.MergeSpec.Function;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Items over aggregates the merge computes (the shards send them as {@code IF(FALSE, item, NULL)},
 * typed but not evaluated, with the aggregates as hidden columns): MySQL's overflow checks at every
 * step of signed integer arithmetic, and the NOT NULL flag the shards' column lost.
 */
class ComputedColumnsTest {
    private static final int BIGINT_FLAGS = ColumnFlags.BINARY_FLAG | ColumnFlags.NUM_FLAG;
    private ShardResponses shards;

    @AfterEach
    void release() {
        if (shards != null) {
            shards.releaseAll();
        }
    }

    /** The item column (nullable BIGINT, as IF(FALSE, ...) types it) and hidden MAX(a), MIN(b), COUNT(*). */
    private static List<ColumnDefinition41> columns() {
        return List.of(
                column("IF(FALSE, x, NULL)", MySqlType.LONGLONG, ShardResponses.BINARY, 21, BIGINT_FLAGS, 0),
                column("MAX(a)", MySqlType.LONGLONG, ShardResponses.BINARY, 20, BIGINT_FLAGS, 0),
                column("MIN(b)", MySqlType.LONGLONG, ShardResponses.BINARY, 20, BIGINT_FLAGS, 0),
                column(
                        "COUNT(*)",
                        MySqlType.LONGLONG,
                        ShardResponses.BINARY,
                        21,
                        BIGINT_FLAGS | ColumnFlags.NOT_NULL_FLAG,
                        0));
    }

    private static MergeSpec spec(MergeExpression item) {
        return new MergeSpec(
                List.of(),
                List.of(),
                List.of(
                        new Aggregate(Function.MAX, new Column(0, true), null),
                        new Aggregate(Function.MIN, new Column(1, true), null),
                        new Aggregate(Function.COUNT, new Column(2, true), null)),
                false,
                -1,
                -1,
                3,
                false,
                null,
                List.of(new MergeSpec.Computed(new Column(0, false), item, -1, -1)));
    }

    private MergedResponse merge(MergeExpression item) {
        if (shards == null) {
            shards = new ShardResponses(false, true); // releases every response it made, after the test
        }
        List<ByteBuf> responses = List.of(
                shards.resultSet(columns(), List.of(row(null, 100L, -9223372036854775800L, 2L)), 0),
                shards.resultSet(columns(), List.of(row(null, 7L, 5L, 3L)), 0));
        return MergedResponse.decodeAndRelease(
                ShardResultMerger.merge(ShardResponses.ALLOC, responses, spec(item), -1, -1, false, true, 2),
                false,
                true);
    }

    private static final MergeExpression MAX_A = new ColumnValue(new Column(0, true));
    private static final MergeExpression MIN_B = new ColumnValue(new Column(1, true));
    private static final MergeExpression COUNT = new ColumnValue(new Column(2, true));

    @Test
    void aSignedIntegerStepOutOfRangeFailsAsMySqlDoesEvenWhenTheResultFits() {
        // (MAX(a) - MIN(b)) - MAX(a): 100 + 9223372036854775800 overflows before the final - 100
        assertThatThrownBy(() ->
                        merge(new Arithmetic(Operator.MINUS, new Arithmetic(Operator.MINUS, MAX_A, MIN_B), MAX_A)))
                .isInstanceOfSatisfying(
                        MergeException.class, e -> assertThat(e.toErr().code()).isEqualTo(1690));
    }

    @Test
    void stepsWithinRangeGiveTheValue() {
        // MAX(a) + MIN(b) - COUNT(*) = 100 - 9223372036854775800 - 5
        MergedResponse got = merge(new Arithmetic(Operator.MINUS, new Arithmetic(Operator.PLUS, MAX_A, MIN_B), COUNT));
        assertThat(got.err()).isNull();
        assertThat(got.rows().get(0).get(0)).isEqualTo(-9223372036854775705L);
    }

    @Test
    void anItemOfNotNullOperandsIsFlaggedNotNullAsMySqlFlagsIt() {
        MergedResponse count = merge(new Arithmetic(Operator.PLUS, COUNT, new MergeExpression.Constant(1L)));
        assertThat(count.columns().get(0).flags() & ColumnFlags.NOT_NULL_FLAG).isNotZero();
        assertThat(count.rows().get(0).get(0)).isEqualTo(6L);

        MergedResponse max = merge(new Arithmetic(Operator.PLUS, MAX_A, COUNT));
        assertThat(max.columns().get(0).flags() & ColumnFlags.NOT_NULL_FLAG).isZero();
        MergedResponse quotient = merge(new Arithmetic(Operator.DIVIDE, COUNT, COUNT));
        assertThat(quotient.columns().get(0).flags() & ColumnFlags.NOT_NULL_FLAG)
                .isZero();
    }

    @Test
    void stepsWhereServersAnswerOtherThanArithmeticAreRefused() {
        MergeExpression.Constant zero = new MergeExpression.Constant(0L);
        MergeExpression.Constant min = new MergeExpression.Constant(Long.MIN_VALUE);
        // MariaDB answers 0 - (-9223372036854775808) with -9223372036854775808, no error (seed 7, #370999)
        assertThatThrownBy(() -> merge(new Arithmetic(Operator.MINUS, zero, min)))
                .isInstanceOfSatisfying(
                        MergeException.class, e -> assertThat(e.toErr().code()).isEqualTo(1235));
        // and 3 * -3074457345618258603 (= -(2^63 + 1)) with 9223372036854775807
        assertThatThrownBy(() -> merge(new Arithmetic(
                        Operator.TIMES,
                        new MergeExpression.Constant(3L),
                        new MergeExpression.Constant(-3074457345618258603L))))
                .isInstanceOfSatisfying(
                        MergeException.class, e -> assertThat(e.toErr().code()).isEqualTo(1235));
        assertThat(merge(new Arithmetic(
                                Operator.TIMES,
                                new MergeExpression.Constant(2L),
                                new MergeExpression.Constant(-4611686018427387904L)))
                        .rows()
                        .get(0)
                        .get(0))
                .isEqualTo(Long.MIN_VALUE);
        assertThat(merge(new Arithmetic(Operator.MINUS, new MergeExpression.Constant(-1L), min))
                        .rows()
                        .get(0)
                        .get(0))
                .isEqualTo(Long.MAX_VALUE);
    }
}
