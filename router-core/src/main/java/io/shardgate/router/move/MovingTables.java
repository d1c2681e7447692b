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
 * @param cleaning the tables whose move switched and whose source copies are being deleted: only
 *     their statements that may reach those copies wait ({@link StatementHold#duringCleanup})
 */
public record MovingTables(
        Map<QualifiedTable, String> moving, Set<QualifiedTable> held, Map<QualifiedTable, Cleanup> cleaning) {
    public static final MovingTables NONE = new MovingTables(Map.of(), Set.of(), Map.of());

    /**
     * A table being cleaned up after its move switched.
     *
     * @param rulesVersion the rules version that switched it: a statement routed by an older one waits
     * @param keyWritesRun whether writes routed to one shard by the key run (no unique index without the
     *     sharding column on the table: such a write cannot meet a stale copy)
     */
    public record Cleanup(long rulesVersion, boolean keyWritesRun) {}

    public MovingTables(Map<QualifiedTable, String> moving, Set<QualifiedTable> held) {
        this(moving, held, Map.of());
    }

    public MovingTables {
        moving = Map.copyOf(moving);
        held = Set.copyOf(held);
        cleaning = Map.copyOf(cleaning);
    }

    /** Whether no move is under way (the statement path's one check then). */
    public boolean none() {
        return moving.isEmpty();
    }
}
