package io.shardgate.it.scale;

import java.util.Arrays;

/** Nearest-rank percentiles of a set of measured durations (milliseconds). */
record Latencies(double[] sortedMillis) {
    Latencies {
        sortedMillis = sortedMillis.clone();
        Arrays.sort(sortedMillis);
        if (sortedMillis.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
    }

    /** The smallest sample with at least {@code p} percent of the samples at or below it. */
    double percentile(double p) {
        int rank = (int) Math.ceil(p / 100.0 * sortedMillis.length);
        return sortedMillis[Math.max(0, Math.min(sortedMillis.length, rank) - 1)];
    }

    double max() {
        return sortedMillis[sortedMillis.length - 1];
    }

    int count() {
        return sortedMillis.length;
    }

    /** {@code p50 / p99 / max} with one decimal, for the report. */
    String summary() {
        return String.format("%.1f / %.1f / %.1f", percentile(50), percentile(99), max());
    }
}
