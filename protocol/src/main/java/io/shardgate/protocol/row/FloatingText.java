package io.shardgate.protocol.row;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * The text MySQL and MariaDB send for FLOAT and DOUBLE values in text rows: the shortest digits that
 * round-trip (6 significant digits for FLOAT), in fixed notation unless the decimal exponent is
 * beyond 15 (or below -14) and the digits would need zero padding, then as "1.5e20" / "5e-324".
 * Rules derived from MariaDB 10.11 output (e.g. 1e14 gives "100000000000000", 1e15 gives "1e15").
 */
final class FloatingText {
    /** DBL_DIG: fixed notation is kept up to this decimal exponent. */
    private static final int MAX_DECPT_FOR_F_FORMAT = 15;

    private FloatingText() {}

    static String format(double value, boolean isFloat) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("MySQL has no " + value);
        }
        if (value == 0) {
            return (1 / value < 0) ? "-0" : "0";
        }
        BigDecimal stripped = (isFloat
                        ? new BigDecimal(value).round(new MathContext(6, RoundingMode.HALF_EVEN))
                        : shortest(value))
                .stripTrailingZeros();
        String digits = stripped.unscaledValue().abs().toString();
        int len = digits.length();
        // value = 0.DIGITS x 10^decpt
        int decpt = len - stripped.scale();
        StringBuilder sb = new StringBuilder(len + 8);
        if (stripped.signum() < 0) {
            sb.append('-');
        }
        boolean fixed = decpt >= -MAX_DECPT_FOR_F_FORMAT + 1 && (decpt <= MAX_DECPT_FOR_F_FORMAT || len > decpt);
        if (fixed) {
            if (decpt <= 0) {
                sb.append("0.").append("0".repeat(-decpt)).append(digits);
            } else if (decpt < len) {
                sb.append(digits, 0, decpt).append('.').append(digits, decpt, len);
            } else {
                sb.append(digits).append("0".repeat(decpt - len));
            }
        } else {
            sb.append(digits.charAt(0));
            if (len > 1) {
                sb.append('.').append(digits, 1, len);
            }
            sb.append('e').append(decpt - 1);
        }
        return sb.toString();
    }

    /**
     * The fewest significant digits that parse back to {@code value}. Hand-written because
     * Double.toString on Java 17 sometimes gives more digits than needed (4.9E-324 for 5e-324).
     */
    private static BigDecimal shortest(double value) {
        BigDecimal exact = new BigDecimal(value);
        for (int precision = 1; precision < 17; precision++) {
            BigDecimal candidate = exact.round(new MathContext(precision, RoundingMode.HALF_EVEN));
            if (candidate.doubleValue() == value) {
                return candidate;
            }
        }
        return exact.round(new MathContext(17, RoundingMode.HALF_EVEN));
    }
}
