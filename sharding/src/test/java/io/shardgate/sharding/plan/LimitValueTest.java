package io.shardgate.sharding.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class LimitValueTest {

    @Test
    void unsignedSixtyFourBitValuesSaturate() {
        assertThat(LimitValue.of("18446744073709551615")).isEqualTo(Long.MAX_VALUE);
        assertThat(LimitValue.of(new BigInteger("9223372036854775808"))).isEqualTo(Long.MAX_VALUE);
        assertThat(LimitValue.of(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(LimitValue.of("5")).isEqualTo(5);
        assertThat(LimitValue.of(0L)).isZero();
        assertThat(LimitValue.of(new BigDecimal("7"))).isEqualTo(7);
    }

    @Test
    void whatIsNoLimitNumberIsMinusOne() {
        assertThat(LimitValue.of("18446744073709551616")).isEqualTo(-1);
        assertThat(LimitValue.of(-1L)).isEqualTo(-1);
        assertThat(LimitValue.of("1.5")).isEqualTo(-1);
        assertThat(LimitValue.of(new BigDecimal("1.5"))).isEqualTo(-1);
        assertThat(LimitValue.of(null)).isEqualTo(-1);
        assertThat(LimitValue.of(2.0d)).isEqualTo(-1);
    }
}
