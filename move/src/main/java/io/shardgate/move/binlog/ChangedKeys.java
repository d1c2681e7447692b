package io.shardgate.move.binlog;

import io.shardgate.move.TableShape;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one committed transaction (or one statement logged on its own, such as DDL on another table)
 * changed in the watched tables: the primary keys of the rows it inserted, updated (before and after
 * image) or deleted, and the binary log position after it, from which a tail resumes. The mover
 * re-reads these rows from the source by key; it never applies the log's row images.
 *
 * @param position the resume point: where the binary log continues after this transaction, or,
 *     while an XA transaction is prepared and not yet committed, the start of its group (resuming
 *     there reads it again; transactions in between are reported again, which re-reading tolerates)
 * @param keys per watched table the keys of changed rows, each once, in the order first seen; tables
 *     the transaction did not change are absent, so an empty map means "nothing to copy, but the
 *     position moved on"
 */
public record ChangedKeys(BinlogPosition position, Map<TableShape, List<RowKey>> keys) {

    public ChangedKeys {
        Map<TableShape, List<RowKey>> copy = new LinkedHashMap<>();
        keys.forEach((table, rows) -> copy.put(table, List.copyOf(rows)));
        keys = java.util.Collections.unmodifiableMap(copy);
    }

    /** A transaction that changed no watched table: only the position moves on. */
    public static ChangedKeys positionOnly(BinlogPosition position) {
        return new ChangedKeys(position, Map.of());
    }

    static ChangedKeys of(BinlogPosition position, Map<TableShape, ? extends Set<RowKey>> keys) {
        Map<TableShape, List<RowKey>> lists = new LinkedHashMap<>();
        keys.forEach((table, rows) -> lists.put(table, List.copyOf(rows)));
        return new ChangedKeys(position, lists);
    }

    public boolean isEmpty() {
        return keys.isEmpty();
    }

    /** The keys of {@code table}'s changed rows; empty when it did not change. */
    public List<RowKey> keys(TableShape table) {
        return keys.getOrDefault(table, List.of());
    }

    /** How many row keys, over all tables. */
    public int size() {
        return keys.values().stream().mapToInt(List::size).sum();
    }
}
