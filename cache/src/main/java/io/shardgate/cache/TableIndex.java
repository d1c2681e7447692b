package io.shardgate.cache;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which stored results read which table, so a write invalidates them without a scan, and every
 * stored result, so a purge reaches those Caffeine already hides. An entry is indexed after it is
 * stored and unindexed by the removal listener; a table's set is mutated only inside {@link
 * ConcurrentHashMap#compute} on its table and dropped when empty, so the index holds exactly the
 * present entries and their tables.
 *
 * <p>Why a set of all entries next to Caffeine's map: Caffeine's views skip entries whose TTL has
 * passed, but its timer wheel removes them (and our listener releases their buffers) only when its
 * ~1 s bucket is swept. A purge or {@code close()} that walked the map would leave them held.
 */
final class TableIndex {
    private final ConcurrentHashMap<QualifiedTable, Set<CacheEntry>> byTable = new ConcurrentHashMap<>();
    private final Set<CacheEntry> all = ConcurrentHashMap.newKeySet();

    void add(CacheEntry entry) {
        all.add(entry);
        for (QualifiedTable t : entry.tables) {
            byTable.compute(t, (k, set) -> {
                Set<CacheEntry> s = set != null ? set : new HashSet<>(4);
                s.add(entry);
                return s;
            });
        }
    }

    void remove(CacheEntry entry) {
        all.remove(entry);
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

    /** A snapshot of every indexed entry, expired ones included. */
    List<CacheEntry> entries() {
        return List.copyOf(all);
    }

    /** How many tables have entries (for tests: the index must not outlive its entries). */
    int tables() {
        return byTable.size();
    }
}
