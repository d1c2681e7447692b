package io.shardgate.router.merge;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Estimated heap bytes of one decoded cell value (see io.shardgate.protocol.row), for charging a
 * merge's group state against {@code server.max_merge_bytes}: object header, fields and array
 * contents, rounded generously rather than measured.
 */
final class ValueSize {
    private ValueSize() {}

    static long of(Object v) {
        if (v == null) {
            return 0;
        }
        if (v instanceof byte[] b) {
            return 16L + b.length;
        }
        if (v instanceof String s) {
            return 40L + 2L * s.length();
        }
        if (v instanceof BigDecimal d) {
            return 64L + d.unscaledValue().bitLength() / 8;
        }
        if (v instanceof BigInteger i) {
            return 48L + i.bitLength() / 8;
        }
        return 32; // boxed numbers, temporal values
    }

    /** A group or DISTINCT key: its list and each value. */
    static long ofKey(Object[] key) {
        long held = 32L + 8L * key.length;
        for (Object v : key) {
            held += of(v);
        }
        return held;
    }
}
