package io.shardgate.benchmarks;

/**
 * Values shaped like sysbench's CHAR columns {@code c} (11 groups) and {@code pad} (5 groups):
 * groups of eleven pseudo-random digits joined by dashes, deterministic per seed.
 */
final class SysbenchText {
    private SysbenchText() {}

    static String c(long seed) {
        return digits(seed, 11);
    }

    static String pad(long seed) {
        return digits(seed, 5);
    }

    private static String digits(long seed, int groups) {
        StringBuilder s = new StringBuilder(groups * 12);
        long x = (seed + 1) * 0x9E3779B97F4A7C15L; // xorshift64 state; never 0
        for (int g = 0; g < groups; g++) {
            if (g > 0) {
                s.append('-');
            }
            for (int d = 0; d < 11; d++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
                s.append((char) ('0' + Math.floorMod(x, 10)));
            }
        }
        return s.toString();
    }
}
