package io.shardgate.sharding.columns;

import java.util.List;

/** What the router knows of one table's columns (names in table order), as the shards reported them. */
public sealed interface TableColumns {

    /** Every hostgroup of the table reported the same column list. */
    record Known(List<String> names) implements TableColumns {
        public Known {
            names = List.copyOf(names);
        }
    }

    /** No report yet (the table is new, or a hostgroup of it did not answer the last refresh). */
    record Untracked(String reason) implements TableColumns {}

    /** The hostgroups of the table report different column lists; {@code disagreement} names them. */
    record Disagreeing(String disagreement) implements TableColumns {}
}
