package io.shardgate.router.metrics;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A fixed-size latency histogram for one statement shape: log-linear buckets over microseconds,
 * four per power of two (every value lands in a bucket at most 25% wide), below 2^37 µs (about
 * 38 hours; longer times count in one last bucket). 145 counters, about 1.2 KiB, whatever the
 * traffic: hand-written rather than HdrHistogram, whose recorder per digest would be tens of KiB.
 *
 * <p>Recording is one atomic increment, safe from any thread; percentiles read a snapshot that
 * concurrent recording may move by a count or two.
 */
final class LatencyHistogram {
    private static final int SUB_BUCKETS = 4;
    private static final int MAX_EXPONENT = 36;
    /** Four buckets per exponent 1..36 after the four for 0-3 µs, and one for anything longer. */
    static final int BUCKETS = MAX_EXPONENT * SUB_BUCKETS + 1;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

    void record(long micros) {
        counts.incrementAndGet(bucket(micros));
    }

    /** The bucket of {@code micros}: values 0-3 their own, then four per power of two. */
    static int bucket(long micros) {
        if (micros < SUB_BUCKETS) {
            return (int) Math.max(micros, 0);
        }
        int exponent = 63 - Long.numberOfLeadingZeros(micros);
        if (exponent > MAX_EXPONENT) {
            return BUCKETS - 1;
        }
        int sub = (int) (micros >>> (exponent - 2)) & (SUB_BUCKETS - 1);
        return (exponent - 1) * SUB_BUCKETS + sub;
    }

    /** The largest value a bucket holds. */
    static long upperBound(int bucket) {
        if (bucket < SUB_BUCKETS) {
            return bucket;
        }
        if (bucket == BUCKETS - 1) {
            return Long.MAX_VALUE;
        }
        int exponent = bucket / SUB_BUCKETS + 1;
        long low = (long) (SUB_BUCKETS + bucket % SUB_BUCKETS) << (exponent - 2);
        return low + (1L << (exponent - 2)) - 1;
    }

    /**
     * The value at or below which {@code percentile} percent of the recorded values lie, as the
     * upper bound of their bucket (never above {@code max}); 0 when nothing was recorded.
     */
    long percentile(double percentile, long max) {
        long[] snapshot = new long[BUCKETS];
        long total = 0;
        for (int i = 0; i < BUCKETS; i++) {
            snapshot[i] = counts.get(i);
            total += snapshot[i];
        }
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(total * percentile / 100.0));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += snapshot[i];
            if (seen >= rank) {
                return Math.min(upperBound(i), max);
            }
        }
        return max;
    }
}
