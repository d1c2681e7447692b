package io.shardgate.sharding.columns;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What the router knows of one table's columns (names in table order), as the shards reported them. */
public sealed interface TableColumns {

    /**
     * Every hostgroup of the table reported the same column list.
     *
     * @param collations the collation of each string column with one, by lower-case name
     */
    record Known(List<String> names, Map<String, String> collations) implements TableColumns {
        public Known {
            names = List.copyOf(names);
            collations = Map.copyOf(collations);
        }

        /** Columns without collations. */
        public Known(List<String> names) {
            this(names, Map.of());
        }

        /** As the shards reported them. */
        public static Known of(List<TrackedColumn> columns) {
            Map<String, String> collations = new HashMap<>();
            for (TrackedColumn c : columns) {
                if (c.collation() != null) {
                    collations.put(c.name().toLowerCase(Locale.ROOT), c.collation());
                }
            }
            return new Known(columns.stream().map(TrackedColumn::name).toList(), collations);
        }

        /** The collation of {@code column} (any case), or null when it has none or is not a column. */
        public String collationOf(String column) {
            return collations.get(column.toLowerCase(Locale.ROOT));
        }
    }

    /** No report yet (the table is new, or a hostgroup of it did not answer the last refresh). */
    record Untracked(String reason) implements TableColumns {}

    /** The hostgroups of the table report different column lists; {@code disagreement} names them. */
    record Disagreeing(String disagreement) implements TableColumns {}
}
