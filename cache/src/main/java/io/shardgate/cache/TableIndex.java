package io.shardgate.cache;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which stored results read which table, so a write invalidates them without a scan. An entry is
 * indexed after it is stored and unindexed by the removal listener; a table's set is mutated only
 * inside {@link ConcurrentHashMap#compute} on its table and dropped when empty, so the index holds
 * exactly the tables of present entries.
 */
final class TableIndex {
    private final ConcurrentHashMap<QualifiedTable, Set<CacheEntry>> byTable = new ConcurrentHashMap<>();

    void add(CacheEntry entry) {
        for (QualifiedTable t : entry.tables) {
            byTable.compute(t, (k, set) -> {
                Set<CacheEntry> s = set != null ? set : new HashSet<>(4);
                s.add(entry);
                return s;
            });
        }
    }

    void remove(CacheEntry entry) {
        for (QualifiedTable t : entry.tables) {
            byTable.computeIfPresent(t, (k, set) -> {
                set.remove(entry);
                return set.isEmpty() ? null : set;
            });
        }
    }

    /** Detaches and returns the entries that read {@code table}. */
    List<CacheEntry> take(QualifiedTable table) {
        Set<CacheEntry> set = byTable.remove(table);
        return set == null ? List.of() : List.copyOf(set);
    }

    /** How many tables have entries (for tests: the index must not outlive its entries). */
    int tables() {
        return byTable.size();
    }
}
