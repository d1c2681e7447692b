package io.shardgate.router.metrics;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Statistics per statement shape (ProxySQL's stats_mysql_query_digest): for each schema, digest and
 * hostgroup, how often it ran, its total, smallest and largest time from the client's command to
 * the end of the router's answer, the 50th, 95th and 99th percentiles of that time ({@link
 * LatencyHistogram}), the rows it sent and the rows it changed, and how often that answer was an
 * error. Text ({@code COM_QUERY}) and prepared ({@code COM_STMT_EXECUTE}, under the prepared SQL's
 * digest) statements alike.
 *
 * <p>Bounded: at most {@code maxDigests} entries, Caffeine evicting the least used (W-TinyLFU), so
 * an application generating endless distinct statements cannot grow it. Recording is a cache
 * lookup and a few atomic adds, from any event loop.
 */
public final class QueryDigestStats {
    /** Statements run on several hostgroups (merged) are recorded under this hostgroup. */
    public static final int SEVERAL_HOSTGROUPS = -1;

    /** What identifies a row. */
    private record Key(String schema, long digest, int hostgroup) {}

    /** One row, as the admin table shows it. */
    public record Row(
            String schema,
            String digest,
            int hostgroup,
            long count,
            long errors,
            long sumMicros,
            long minMicros,
            long maxMicros,
            long p50Micros,
            long p95Micros,
            long p99Micros,
            long rowsSent,
            long rowsAffected) {}

    private static final class Counters {
        final String text;
        final LongAdder count = new LongAdder();
        final LongAdder errors = new LongAdder();
        final LongAdder sumNanos = new LongAdder();
        final AtomicLong minNanos = new AtomicLong(Long.MAX_VALUE);
        final AtomicLong maxNanos = new AtomicLong();
        final LongAdder rowsSent = new LongAdder();
        final LongAdder rowsAffected = new LongAdder();
        final LatencyHistogram latency = new LatencyHistogram();

        Counters(String text) {
            this.text = text;
        }
    }

    private final Cache<Key, Counters> entries;

    public QueryDigestStats(long maxDigests) {
        this.entries = Caffeine.newBuilder().maximumSize(maxDigests).build();
    }

    /** One statement of shape {@code digestText} ran on {@code hostgroup} in {@code nanos}. */
    public void record(String schema, long digest, String digestText, int hostgroup, long nanos, boolean error) {
        record(schema, digest, digestText, hostgroup, nanos, error, 0, 0);
    }

    /**
     * One statement of shape {@code digestText} ran on {@code hostgroup} in {@code nanos}, sending
     * {@code rowsSent} rows and changing {@code rowsAffected} (the affected rows of its OK packets).
     */
    public void record(
            String schema,
            long digest,
            String digestText,
            int hostgroup,
            long nanos,
            boolean error,
            long rowsSent,
            long rowsAffected) {
        Counters c = entries.get(new Key(schema, digest, hostgroup), k -> new Counters(digestText));
        c.count.increment();
        c.sumNanos.add(nanos);
        c.latency.record(nanos / 1000);
        if (rowsSent != 0) {
            c.rowsSent.add(rowsSent);
        }
        if (rowsAffected != 0) {
            c.rowsAffected.add(rowsAffected);
        }
        c.minNanos.accumulateAndGet(nanos, Math::min);
        c.maxNanos.accumulateAndGet(nanos, Math::max);
        if (error) {
            c.errors.increment();
        }
    }

    /** Every row, most frequent first. */
    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        entries.asMap().forEach((k, c) -> {
            long count = c.count.sum();
            long max = c.maxNanos.get() / 1000;
            rows.add(new Row(
                    k.schema(),
                    c.text,
                    k.hostgroup(),
                    count,
                    c.errors.sum(),
                    c.sumNanos.sum() / 1000,
                    count == 0 ? 0 : c.minNanos.get() / 1000,
                    max,
                    c.latency.percentile(50, max),
                    c.latency.percentile(95, max),
                    c.latency.percentile(99, max),
                    c.rowsSent.sum(),
                    c.rowsAffected.sum()));
        });
        rows.sort(Comparator.comparingLong(Row::count).reversed());
        return rows;
    }

    /** Forgets every row (the admin's {@code DELETE FROM stats_query_digest}). */
    public void clear() {
        entries.invalidateAll();
    }

    /** Rows held (approximate under concurrent use). */
    public long size() {
        entries.cleanUp();
        return entries.estimatedSize();
    }
}
