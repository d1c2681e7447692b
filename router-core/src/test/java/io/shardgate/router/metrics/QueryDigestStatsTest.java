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
                        new QueryDigestStats.Row("shop", "SELECT c FROM t WHERE id = ?", 10, 3, 1, 12, 1, 8),
                        new QueryDigestStats.Row("shop", "SELECT c FROM t WHERE id = ?", 20, 1, 0, 5, 5, 5),
                        new QueryDigestStats.Row("other", "DELETE FROM t", -1, 1, 0, 2, 2, 2));
        stats.clear();
        assertThat(stats.rows()).isEmpty();
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
