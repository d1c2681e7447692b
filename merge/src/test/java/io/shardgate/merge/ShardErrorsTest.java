package io.shardgate.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which shard errors the client hears as they are, and which become a refusal. */
class ShardErrorsTest {
    private static final ErrPacket OUT_OF_RANGE = new ErrPacket(1690, "22003", "BIGINT value is out of range");
    private static final ErrPacket COLUMN_RANGE = new ErrPacket(1264, "22003", "Out of range value for column 'd'");
    private static final ErrPacket DUPLICATE = new ErrPacket(1062, "23000", "Duplicate entry '1' for key 'PRIMARY'");
    private static final ErrPacket LOCK_WAIT = new ErrPacket(1205, "HY000", "Lock wait timeout exceeded");
    private static final ErrPacket NO_TABLE = new ErrPacket(1146, "42S02", "Table 'dt.x' doesn't exist");

    @Test
    void oneShardsErrorWithoutLimitIsForwarded() {
        assertThat(ShardErrors.refusal(List.of(OUT_OF_RANGE), false)).isNull();
        assertThat(ShardErrors.refusal(List.of(DUPLICATE), false)).isNull();
    }

    @Test
    void theSameCodeOnSeveralShardsIsForwarded() {
        assertThat(ShardErrors.refusal(List.of(OUT_OF_RANGE, OUT_OF_RANGE), false))
                .isNull();
    }

    @Test
    void differentDataErrorsAreRefusedNamingBoth() {
        ErrPacket got = ShardErrors.refusal(List.of(OUT_OF_RANGE, COLUMN_RANGE), false);
        assertThat(got.code()).isEqualTo(ErrorCode.ER_NOT_SUPPORTED_YET.code());
        assertThat(got.message())
                .contains("1690: BIGINT value is out of range")
                .contains("1264: Out of range value for column 'd'");
        assertThat(ShardErrors.refusal(List.of(DUPLICATE, COLUMN_RANGE), false)).isNotNull();
    }

    @Test
    void errorsNotCausedByARowAreForwardedEvenUnderALimitOrBesideOthers() {
        assertThat(ShardErrors.refusal(List.of(LOCK_WAIT), true)).isNull();
        assertThat(ShardErrors.refusal(List.of(NO_TABLE), true)).isNull();
        // a lock wait timeout (or a deadlock, which rolls the shard's transaction back) is never hidden
        assertThat(ShardErrors.refusal(List.of(LOCK_WAIT, OUT_OF_RANGE), false)).isNull();
    }

    @Test
    void aDataErrorUnderALimitIsRefused() {
        ErrPacket got = ShardErrors.refusal(List.of(OUT_OF_RANGE), true);
        assertThat(got.code()).isEqualTo(ErrorCode.ER_NOT_SUPPORTED_YET.code());
        assertThat(got.message()).contains("LIMIT or OFFSET").contains("(1690: BIGINT value is out of range)");
    }

    @Test
    void dataErrorsAreSqlStateClasses21To23() {
        assertThat(ShardErrors.dataError(new ErrPacket(1242, "21000", "Subquery returns more than 1 row")))
                .isTrue();
        assertThat(ShardErrors.dataError(new ErrPacket(1292, "22007", "Truncated incorrect DOUBLE value")))
                .isTrue();
        assertThat(ShardErrors.dataError(DUPLICATE)).isTrue();
        assertThat(ShardErrors.dataError(LOCK_WAIT)).isFalse();
        assertThat(ShardErrors.dataError(new ErrPacket(1213, "40001", "Deadlock found")))
                .isFalse();
    }
}
