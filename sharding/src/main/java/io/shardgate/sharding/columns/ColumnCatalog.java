package io.shardgate.sharding.columns;

import java.util.Locale;
import java.util.Map;

/**
 * One immutable version of the column lists the router tracks for the tables of its logical schemas
 * (schema tracking): learned from the shards' {@code information_schema.COLUMNS}, replaced whole
 * on each refresh. A plan that read it records {@link #version()}, so a new version re-plans it.
 *
 * @param tables by {@link #key(String, String)}
 */
public record ColumnCatalog(long version, Map<String, TableColumns> tables) {
    /** Nothing tracked (schema tracking off, or before the first refresh). */
    public static final ColumnCatalog EMPTY = new ColumnCatalog(0, Map.of());

    public ColumnCatalog {
        tables = Map.copyOf(tables);
    }

    /** What is known of {@code schema.table} (names compared case-insensitively, as table rules do). */
    public TableColumns lookup(String schema, String table) {
        TableColumns found = tables.get(key(schema, table));
        return found != null
                ? found
                : new TableColumns.Untracked(
                        "the router has not learned the columns of " + schema + "." + table + " yet (schema tracking)");
    }

    /** The map key of a table: {@code schema.table}, lower case. */
    public static String key(String schema, String table) {
        return (schema + "." + table).toLowerCase(Locale.ROOT);
    }
}
