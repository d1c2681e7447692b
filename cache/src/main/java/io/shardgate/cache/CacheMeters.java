package io.shardgate.cache;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The cache's counters, in total and per query rule, registered as Micrometer meters: {@code
 * shardgate.cache.<counter>} for the total and {@code shardgate.cache.rule.<counter>} tagged {@code
 * rule=<index>} per rule (separate names, because one name must keep one set of tag keys).
 */
final class CacheMeters {
    /** One set of counters; updates go to a rule's and to the total. */
    static final class Counters {
        final LongAdder hits = new LongAdder();
        final LongAdder waits = new LongAdder();
        final LongAdder misses = new LongAdder();
        final LongAdder stores = new LongAdder();
        final LongAdder rejected = new LongAdder();
        final LongAdder evictions = new LongAdder();
        final LongAdder invalidations = new LongAdder();
        final AtomicLong entries = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();

        CacheStats snapshot() {
            return new CacheStats(
                    hits.sum(),
                    waits.sum(),
                    misses.sum(),
                    stores.sum(),
                    rejected.sum(),
                    evictions.sum(),
                    invalidations.sum(),
                    entries.get(),
                    bytes.get());
        }

        void register(MeterRegistry registry, String prefix, Tags tags) {
            counter(registry, prefix + "hits", tags, hits, "lookups answered from a stored result");
            counter(registry, prefix + "waits", tags, waits, "lookups answered by another session's fill");
            counter(registry, prefix + "misses", tags, misses, "lookups that ran on the backend to fill");
            counter(registry, prefix + "stores", tags, stores, "results stored");
            counter(registry, prefix + "rejected", tags, rejected, "results too large or invalidated while filling");
            counter(registry, prefix + "evictions", tags, evictions, "results dropped for size or TTL");
            counter(registry, prefix + "invalidations", tags, invalidations, "results dropped by writes and purges");
            Gauge.builder(prefix + "entries", entries, AtomicLong::get)
                    .tags(tags)
                    .description("results held")
                    .register(registry);
            Gauge.builder(prefix + "bytes", bytes, AtomicLong::get)
                    .tags(tags)
                    .baseUnit("bytes")
                    .description("response bytes held")
                    .register(registry);
        }

        private static void counter(MeterRegistry registry, String name, Tags tags, LongAdder adder, String help) {
            FunctionCounter.builder(name, adder, LongAdder::sum)
                    .tags(tags)
                    .description(help)
                    .register(registry);
        }
    }

    private final MeterRegistry registry;
    final Counters total = new Counters();
    private final ConcurrentHashMap<Integer, Counters> byRule = new ConcurrentHashMap<>();

    CacheMeters(MeterRegistry registry) {
        this.registry = registry;
        total.register(registry, "shardgate.cache.", Tags.empty());
    }

    Counters rule(int rule) {
        Counters c = byRule.get(rule);
        return c != null ? c : byRule.computeIfAbsent(rule, this::registerRule);
    }

    private Counters registerRule(int rule) {
        Counters c = new Counters();
        c.register(registry, "shardgate.cache.rule.", Tags.of("rule", Integer.toString(rule)));
        return c;
    }

    /** Counts one event for {@code rule} and in total. */
    void count(int rule, Function<Counters, LongAdder> counter) {
        counter.apply(total).increment();
        counter.apply(rule(rule)).increment();
    }

    /** Adds an entry's presence ({@code sign} 1) or absence (-1) to the entry and byte gauges. */
    void held(int rule, int sign, long bytes) {
        total.entries.addAndGet(sign);
        total.bytes.addAndGet(sign * bytes);
        Counters r = rule(rule);
        r.entries.addAndGet(sign);
        r.bytes.addAndGet(sign * bytes);
    }

    Map<Integer, CacheStats> byRule() {
        Map<Integer, CacheStats> out = new TreeMap<>();
        byRule.forEach((rule, c) -> out.put(rule, c.snapshot()));
        return out;
    }
}
