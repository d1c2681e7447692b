package io.shardgate.router.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QueryDigestStatsTest {
    @Test
    void countsTimesAndErrorsPerSchemaDigestAndHostgroup() {
        QueryDigestStats stats = new QueryDigestStats(100);
        stats.record("shop", 1, "SELECT c FROM t WHERE id = ?", 10, 3_000, false);
        stats.record("shop", 1, "SELECT c FROM t WHERE id = ?", 10, 1_000, false);
        stats.record("shop", 1, "SELECT c FROM t WHERE id = ?", 10, 8_000, true);
        stats.record("shop", 1, "SELECT c FROM t WHERE id = ?", 20, 5_000, false);
        stats.record("other", 2, "DELETE FROM t", QueryDigestStats.SEVERAL_HOSTGROUPS, 2_000, false);

        assertThat(stats.rows())
                .containsExactly(
                        new QueryDigestStats.Row(
                                "shop", "SELECT c FROM t WHERE id = ?", 10, 3, 1, 12, 1, 8, 3, 8, 8, 0, 0),
                        new QueryDigestStats.Row(
                                "shop", "SELECT c FROM t WHERE id = ?", 20, 1, 0, 5, 5, 5, 5, 5, 5, 0, 0),
                        new QueryDigestStats.Row("other", "DELETE FROM t", -1, 1, 0, 2, 2, 2, 2, 2, 2, 0, 0));
        stats.clear();
        assertThat(stats.rows()).isEmpty();
    }

    @Test
    void sumsRowsSentAndAffectedAndComputesPercentilesPerDigest() {
        QueryDigestStats stats = new QueryDigestStats(100);
        for (int i = 1; i <= 1_000; i++) {
            stats.record("shop", 7, "SELECT c FROM t WHERE k > ?", 10, i * 1_000L, false, 2, 0);
        }
        stats.record("shop", 8, "UPDATE t SET c = ?", 10, 1_000, false, 0, 5);
        stats.record("shop", 8, "UPDATE t SET c = ?", 10, 1_000, true, 0, 0);

        QueryDigestStats.Row select = stats.rows().stream()
                .filter(r -> r.digest().startsWith("SELECT"))
                .findFirst()
                .orElseThrow();
        assertThat(select.count()).isEqualTo(1_000);
        assertThat(select.rowsSent()).isEqualTo(2_000);
        assertThat(select.rowsAffected()).isZero();
        // buckets are at most 25% wide and report their upper bound: never below the true value
        assertThat(select.p50Micros()).isBetween(500L, 625L);
        assertThat(select.p95Micros()).isBetween(950L, 1_000L);
        assertThat(select.p99Micros()).isBetween(990L, 1_000L);
        QueryDigestStats.Row update = stats.rows().stream()
                .filter(r -> r.digest().startsWith("UPDATE"))
                .findFirst()
                .orElseThrow();
        assertThat(update.rowsAffected()).isEqualTo(5);
        assertThat(update.errors()).isEqualTo(1);
    }

    @Test
    void histogramBucketsHoldTheirValuesWithinAQuarter() {
        long previousBound = -1;
        for (int b = 0; b < LatencyHistogram.BUCKETS - 1; b++) {
            long bound = LatencyHistogram.upperBound(b);
            assertThat(bound).isGreaterThan(previousBound);
            assertThat(LatencyHistogram.bucket(bound)).isEqualTo(b);
            assertThat(LatencyHistogram.bucket(previousBound + 1)).isEqualTo(b);
            assertThat(bound - previousBound).isLessThanOrEqualTo(Math.max(1, (previousBound + 1) / 4));
            previousBound = bound;
        }
        assertThat(previousBound).isEqualTo((1L << 37) - 1);
        assertThat(LatencyHistogram.bucket(1L << 37)).isEqualTo(LatencyHistogram.BUCKETS - 1);
        assertThat(LatencyHistogram.bucket(Long.MAX_VALUE)).isEqualTo(LatencyHistogram.BUCKETS - 1);
        assertThat(new LatencyHistogram().percentile(99, 0)).isZero();
    }

    @Test
    void keepsAtMostItsBoundOfDigests() {
        QueryDigestStats stats = new QueryDigestStats(10);
        for (int i = 0; i < 1_000; i++) {
            stats.record("shop", i, "SELECT " + i, 10, 1_000, false);
        }
        assertThat(stats.size()).isLessThanOrEqualTo(10);
        assertThat(stats.rows()).hasSizeLessThanOrEqualTo(10);
    }
}
