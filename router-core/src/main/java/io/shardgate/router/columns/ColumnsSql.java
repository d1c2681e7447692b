package io.shardgate.router.columns;

import io.shardgate.sharding.columns.ColumnCatalog;
import io.shardgate.sharding.columns.TrackedColumn;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The information_schema query of schema tracking and the reading of its rows; pure. */
final class ColumnsSql {
    private ColumnsSql() {}

    /** Every column of the tables of {@code schemas}, in table and column order. */
    static String select(Collection<String> schemas) {
        String names = schemas.stream()
                .sorted()
                .map(s -> "'" + s.replace("\\", "\\\\").replace("'", "''") + "'")
                .collect(Collectors.joining(", "));
        return "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS"
                + " WHERE TABLE_SCHEMA IN (" + names + ") ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION";
    }

    /** Rows of {@link #select} as column lists (names and collations) by {@link ColumnCatalog#key}. */
    static Map<String, List<TrackedColumn>> columnsByTable(List<List<String>> rows) {
        Map<String, List<TrackedColumn>> out = new LinkedHashMap<>();
        for (List<String> row : rows) {
            out.computeIfAbsent(ColumnCatalog.key(row.get(0), row.get(1)), k -> new ArrayList<>())
                    .add(new TrackedColumn(row.get(2), row.get(3)));
        }
        return out;
    }
}
