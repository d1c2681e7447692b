package io.shardgate.router.resultcache;

import io.shardgate.cache.QualifiedTable;
import io.shardgate.cache.ResultCache;
import java.util.HashSet;
import java.util.Set;

/**
 * What one write (or a committed transaction's writes) makes stale in the result cache: named
 * tables, whole schemas (DROP DATABASE), or everything (CALL, SQL-level EXECUTE, multi-statements:
 * statements whose effects the router cannot see). Immutable.
 */
public record Invalidation(boolean all, Set<String> schemas, Set<QualifiedTable> tables) {
    /** A statement that changes no data. */
    public static final Invalidation NONE = new Invalidation(false, Set.of(), Set.of());

    /** A statement whose effects are unknown: everything goes. */
    public static final Invalidation ALL = new Invalidation(true, Set.of(), Set.of());

    public Invalidation {
        schemas = Set.copyOf(schemas);
        tables = Set.copyOf(tables);
    }

    public boolean isNone() {
        return !all && schemas.isEmpty() && tables.isEmpty();
    }

    /** Both this and {@code other}, for the writes a transaction accumulates until COMMIT. */
    public Invalidation plus(Invalidation other) {
        if (other.isNone()) {
            return this;
        }
        if (isNone()) {
            return other;
        }
        if (all || other.all) {
            return ALL;
        }
        Set<String> s = new HashSet<>(schemas);
        s.addAll(other.schemas);
        Set<QualifiedTable> t = new HashSet<>(tables);
        t.addAll(other.tables);
        return new Invalidation(false, s, t);
    }

    /** Drops what this names from {@code cache}; returns how many results were held. */
    public int applyTo(ResultCache cache) {
        if (all) {
            return cache.invalidateAll();
        }
        int n = 0;
        for (String schema : schemas) {
            n += cache.invalidateSchema(schema);
        }
        return n + cache.invalidateTables(tables);
    }
}
