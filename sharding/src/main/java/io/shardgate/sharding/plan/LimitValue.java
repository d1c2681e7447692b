package io.shardgate.sharding.plan;

import io.shardgate.sharding.rule.KeyValues;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A LIMIT count or offset as a number. MySQL takes an unsigned 64-bit value there, and {@code LIMIT
 * 18446744073709551615} is its documented idiom for "the rest of the rows": values past {@link
 * Long#MAX_VALUE} mean what {@link Long#MAX_VALUE} means, since no result holds more rows.
 */
public final class LimitValue {
    private static final BigInteger MAX_UNSIGNED = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private LimitValue() {}

    /** The value in 0..Long.MAX_VALUE (saturated), or -1 when it is not an integer in 0..2^64-1. */
    public static long of(Object value) {
        Long small = KeyValues.toInteger(value);
        if (small != null) {
            return small < 0 ? -1 : small;
        }
        BigInteger big = null;
        if (value instanceof BigInteger b) {
            big = b;
        } else if (value instanceof BigDecimal d) {
            try {
                big = d.toBigIntegerExact();
            } catch (ArithmeticException e) {
                return -1;
            }
        } else if (value instanceof String s && !s.isEmpty() && s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            big = new BigInteger(s);
        }
        if (big == null || big.signum() < 0 || big.compareTo(MAX_UNSIGNED) > 0) {
            return -1;
        }
        return Long.MAX_VALUE;
    }
}
