package io.shardgate.cache;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Orders invalidations against fills, so a result read before an invalidation of one of its
 * tables is never served after that invalidation returned.
 *
 * <p>Each invalidation takes the next tick and records it as the stamp of what it invalidates
 * (a table, a schema, a rule, or everything). A fill notes the current tick before its query goes
 * to the backend; its result is current as long as no stamp of its tables, schema or rule is
 * later than that tick. The check is exact: an invalidation that returned before a lookup has its
 * stamp recorded, and one whose tick precedes the fill's began before the fill's query was sent, so
 * the backend already saw the write behind it.
 *
 * <p>Stamps are kept per table, schema and rule ever invalidated: as many as the rules name, never
 * per entry.
 */
final class InvalidationClock {
    private final AtomicLong ticks = new AtomicLong();
    private final ConcurrentHashMap<QualifiedTable, Long> tables = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> schemas = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, Long> rules = new ConcurrentHashMap<>();
    private volatile long all;

    /** The tick a fill starting now notes. */
    long now() {
        return ticks.get();
    }

    /** Invalidates {@code table} and with it the reads recorded under its schema's {@link QualifiedTable#anyIn}. */
    void table(QualifiedTable table) {
        long tick = ticks.incrementAndGet();
        tables.merge(table, tick, Math::max);
        if (!table.isAny()) {
            tables.merge(QualifiedTable.anyIn(table.schema()), tick, Math::max);
        }
    }

    void schema(String schema) {
        schemas.merge(QualifiedTable.fold(schema), ticks.incrementAndGet(), Math::max);
    }

    void rule(int rule) {
        rules.merge(rule, ticks.incrementAndGet(), Math::max);
    }

    synchronized void all() {
        all = ticks.incrementAndGet();
    }

    /** Whether a result filled from tick {@code since} is still current. */
    boolean current(long since, String schema, int rule, Set<QualifiedTable> read) {
        if (since >= ticks.get()) {
            return true; // nothing was invalidated since: the common case, one volatile read
        }
        if (all > since || later(rules.get(rule), since)) {
            return false;
        }
        if (schema != null && later(schemas.get(QualifiedTable.fold(schema)), since)) {
            return false;
        }
        for (QualifiedTable t : read) {
            if (later(tables.get(t), since) || later(schemas.get(t.schema()), since)) {
                return false;
            }
        }
        return true;
    }

    private static boolean later(Long stamp, long since) {
        return stamp != null && stamp > since;
    }
}
