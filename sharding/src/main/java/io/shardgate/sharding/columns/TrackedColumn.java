package io.shardgate.sharding.columns;

import java.util.Arrays;
import java.util.List;

/**
 * One column as a shard reported it: its name and its collation ({@code
 * information_schema.COLUMNS.COLLATION_NAME}: null for numbers, dates and binary strings).
 */
public record TrackedColumn(String name, String collation) {

    /** Columns without a collation, by name (numbers, or where the collation does not matter). */
    public static List<TrackedColumn> named(String... names) {
        return Arrays.stream(names).map(n -> new TrackedColumn(n, null)).toList();
    }

    @Override
    public String toString() {
        return collation == null ? name : name + " " + collation;
    }
}
