package io.shardgate.merge;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The bytes a merge is charged for one decoded cell value (see io.shardgate.protocol.row) it keeps
 * in its group state, counted against {@code server.max_merge_bytes} as the buffered merge counts
 * the shards' bytes: the value's own bytes (a string's, a number's 8, a DECIMAL's digits), not the
 * JVM's object headers around it, which {@link GroupState} charges as a fixed amount per group.
 */
final class ValueSize {
    private ValueSize() {}

    static long of(Object v) {
        if (v == null) {
            return 0;
        }
        if (v instanceof byte[] b) {
            return b.length;
        }
        if (v instanceof String s) {
            return 2L * s.length();
        }
        if (v instanceof BigDecimal d) {
            return 8L + d.unscaledValue().bitLength() / 8;
        }
        if (v instanceof BigInteger i) {
            return 8L + i.bitLength() / 8;
        }
        return 8; // numbers, temporal values
    }

    /** A group or DISTINCT key's values. */
    static long ofKey(Object[] key) {
        long held = 0;
        for (Object v : key) {
            held += of(v);
        }
        return held;
    }
}
