package io.shardgate.cache;

import java.util.Locale;

/**
 * A logical table, {@code schema.table}, as reads record it and writes invalidate it. Names are
 * lower-cased: a write must invalidate every spelling a read may have used, and over-invalidating
 * on a case-sensitive server only costs a miss.
 */
public record QualifiedTable(String schema, String table) {
    private static final String ANY = "*"; // no unquoted table name can be *

    public QualifiedTable {
        schema = fold(schema);
        table = fold(table);
    }

    /** A schema or table name as the cache compares it. */
    static String fold(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    public static QualifiedTable of(String schema, String table) {
        return new QualifiedTable(schema, table);
    }

    /**
     * Stands for "some table of {@code schema}": a read whose tables the caller could not name is
     * recorded under it, and a write to any table of the schema invalidates it.
     */
    public static QualifiedTable anyIn(String schema) {
        return new QualifiedTable(schema, ANY);
    }

    /** Whether this is {@link #anyIn}'s placeholder rather than a table. */
    public boolean isAny() {
        return table.equals(ANY);
    }

    @Override
    public String toString() {
        return schema + "." + table;
    }
}
