package io.shardgate.router.move;

import io.shardgate.cache.QualifiedTable;
import java.util.Map;
import java.util.Set;

/**
 * The tables of the moves under way, as every router must treat them: DDL on a moving table is
 * refused for the whole move (the mover copies and follows the rows by the table's shape), and
 * statements on a held table wait while a move cuts over.
 *
 * @param moving each moving table to the id of its move
 * @param held the tables whose statements wait now (a subset of {@code moving})
 */
public record MovingTables(Map<QualifiedTable, String> moving, Set<QualifiedTable> held) {
    public static final MovingTables NONE = new MovingTables(Map.of(), Set.of());

    public MovingTables {
        moving = Map.copyOf(moving);
        held = Set.copyOf(held);
    }

    /** Whether no move is under way (the statement path's one check then). */
    public boolean none() {
        return moving.isEmpty();
    }
}
