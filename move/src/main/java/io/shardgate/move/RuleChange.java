package io.shardgate.move;

import java.util.List;

/**
 * The rule change a move publishes at its cutover ({@link BucketMove}, {@link TableMove}).
 *
 * @param schemasDocument the next {@code schemas} document (JSON)
 * @param tables the tables that move, as the document names them, the requested one first
 * @param sources the hostgroups that hold some of the moving rows now, ascending
 */
public record RuleChange(String schemasDocument, List<String> tables, List<Integer> sources) {
    public RuleChange {
        tables = List.copyOf(tables);
        sources = List.copyOf(sources);
    }
}
