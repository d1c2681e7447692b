package io.shardgate.sharding.rule;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Converts a statement value (a decoded literal or a bound parameter) into the canonical form of a
 * sharding key, or says it has none. Values are {@link Long}, {@link BigInteger}, {@link
 * BigDecimal}, {@link Double}, {@link String}, {@code byte[]} or {@code null} (SQL NULL).
 */
public final class KeyValues {
    private KeyValues() {}

    /**
     * The integer an {@link KeyType#INTEGER} column would compare equal to, or {@code null} when
     * there is none we can be sure of (NULL, a non-integral number, a float, text that is not a plain
     * decimal integer, out of the long range, binary data).
     */
    public static Long toInteger(Object value) {
        if (value instanceof Long l) {
            return l;
        }
        if (value instanceof Integer i) {
            return i.longValue();
        }
        if (value instanceof BigInteger b) {
            return b.bitLength() < 64 ? b.longValue() : null;
        }
        if (value instanceof BigDecimal d) {
            try {
                return d.longValueExact();
            } catch (ArithmeticException e) {
                return null;
            }
        }
        if (value instanceof String s) {
            return parsePlainInteger(s);
        }
        return null;
    }

    /**
     * The string an {@link KeyType#STRING} key hashes as, or {@code null}: only string values route;
     * numbers compare numerically with a string column in MySQL. Trailing spaces are dropped: under
     * the PAD SPACE collations (every MariaDB collation but the _nopad_ ones, and MySQL's before the
     * 0900 family) {@code 'k'} and {@code 'k '} are one key and must live on one shard; under a NO PAD
     * collation they are two keys that merely share a shard, which routing keeps correct.
     */
    public static String toKeyString(Object value) {
        if (!(value instanceof String s)) {
            return null;
        }
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        return end == s.length() ? s : s.substring(0, end);
    }

    // MySQL converts '42' to 42 for comparison; we accept only an optional sign and digits so that a
    // string with a fraction, an exponent, spaces or trailing garbage never routes by guess.
    private static Long parsePlainInteger(String s) {
        int n = s.length();
        int i = 0;
        if (n > 0 && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
            i = 1;
        }
        if (i == n || n - i > 19) {
            return null;
        }
        for (int j = i; j < n; j++) {
            char c = s.charAt(j);
            if (c < '0' || c > '9') {
                return null;
            }
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
