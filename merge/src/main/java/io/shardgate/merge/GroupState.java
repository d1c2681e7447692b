package io.shardgate.merge;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The merged state of a GROUP BY, an aggregate query or a DISTINCT while the shards' rows are
 * folded in: one {@link GroupRow} per group (or one row per distinct row) and shard, each keeping
 * copies of the few shard rows it needs, so it holds memory in proportion to the groups, not to the
 * rows. Rows may arrive from the shards interleaved in any way; {@link #rows} combines the shards'
 * states in shard order, which gives exactly what folding the shards' rows one shard after the other
 * gives: the same first row per group, the same MIN/MAX among equal values, the same group order and
 * the same sums.
 *
 * <p>Threading: one per statement, confined to its caller.
 */
final class GroupState {
    private final boolean grouping;
    private final int[] keyColumns;
    private final ColumnOrder[] orders;
    private final Supplier<Aggregator[]> aggregators;
    /** By shard column: the select items over aggregates the merge computes, else null. */
    private final ComputedColumn[] computed;

    /** What a group (or distinct row) is charged beyond its values: its map entry and objects. */
    static final int GROUP_OVERHEAD = 32;
    /** By shard: the groups (GroupRow) or distinct rows (ShardRow), in the order first seen. */
    private final List<Map<List<Object>, MergedRow>> byShard = new ArrayList<>();

    private long heldBytes;

    /**
     * @param grouping GROUP BY or aggregates (else DISTINCT over {@code keyColumns})
     * @param keyColumns the shard columns that tell groups (or distinct rows) apart
     * @param orders every shard column's ordering (the first shard's definitions)
     * @param aggregators a new set of aggregators (by shard column) for a new group
     * @param computed by shard column, the items the merge computes from the aggregates (or null)
     */
    GroupState(
            int shards,
            boolean grouping,
            int[] keyColumns,
            ColumnOrder[] orders,
            Supplier<Aggregator[]> aggregators,
            ComputedColumn[] computed) {
        this.computed = computed;
        this.grouping = grouping;
        this.keyColumns = keyColumns;
        this.orders = orders;
        this.aggregators = aggregators;
        for (int i = 0; i < shards; i++) {
            byShard.add(new LinkedHashMap<>());
        }
    }

    /** Folds in one row of shard {@code row.shard}; keeps copies, never {@code row} itself. */
    void add(ShardRow row) {
        Object[] key = new Object[keyColumns.length];
        for (int i = 0; i < key.length; i++) {
            key[i] = orders[keyColumns[i]].key(row);
        }
        Map<List<Object>, MergedRow> rows = byShard.get(row.shard);
        List<Object> k = Arrays.asList(key);
        MergedRow known = rows.get(k);
        if (known == null) {
            ShardRow first = row.detached();
            heldBytes += GROUP_OVERHEAD + ValueSize.ofKey(key) + first.heldBytes();
            known = grouping ? new GroupRow(first, aggregators.get(), computed) : first;
            rows.put(k, known);
        }
        if (grouping) {
            heldBytes += ((GroupRow) known).add(row);
        }
    }

    /**
     * Bytes charged for the state: the rows and keys kept, a fixed overhead per group and shard,
     * and what the aggregators hold (distinct values, MIN/MAX rows, DOUBLE addends).
     */
    long heldBytes() {
        return heldBytes;
    }

    /**
     * The merged groups (or distinct rows) in the order first seen shard after shard; an aggregate
     * query without GROUP BY over no rows has one group (COUNT 0, the others NULL). The state is
     * consumed.
     */
    List<MergedRow> rows() {
        Map<List<Object>, MergedRow> merged = new LinkedHashMap<>();
        for (Map<List<Object>, MergedRow> shard : byShard) {
            for (Map.Entry<List<Object>, MergedRow> e : shard.entrySet()) {
                MergedRow known = merged.putIfAbsent(e.getKey(), e.getValue());
                if (known != null && grouping) {
                    ((GroupRow) known).absorb((GroupRow) e.getValue());
                }
            }
            shard.clear();
        }
        if (merged.isEmpty() && grouping && keyColumns.length == 0) {
            return new ArrayList<>(List.of(new GroupRow(null, aggregators.get(), computed)));
        }
        return new ArrayList<>(merged.values());
    }
}
