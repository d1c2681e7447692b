package io.shardgate.router.frontend;

import io.shardgate.cache.QualifiedTable;
import java.util.HashSet;
import java.util.Set;

/**
 * The moving tables a session's open transaction ran statements on while moves were under way. On
 * the source such a transaction holds the tables' metadata locks until it ends, so a cutover cannot
 * lock the source before it ends: while it has touched a held table of a move its further statements
 * run instead of waiting for that move ({@code StatementHold.runsWithItsTransaction}: a wait would keep
 * it from ever committing, and every cutover attempt would let go), and this router acknowledges a
 * hold only once such transactions have ended ({@link
 * FrontendSession}'s cutover barrier): the source is locked only after their last statement (none
 * of them can meet the cutover's lock), and none runs after the switch. A superset errs safely: it
 * makes the acknowledgement wait longer. Event-loop confined, like its session.
 */
public final class MovingTablesTouched {
    private final Set<QualifiedTable> tables = new HashSet<>();

    /** The session is outside a transaction now: what an earlier one touched holds no lock. */
    public void transactionOver() {
        tables.clear();
    }

    /** A statement of the open transaction may read or write {@code referenced}. */
    public void ran(Set<QualifiedTable> referenced) {
        tables.addAll(referenced);
    }

    /** The tables touched so far (a view). */
    public Set<QualifiedTable> tables() {
        return java.util.Collections.unmodifiableSet(tables);
    }

    /** Whether the transaction touched one of {@code held}. */
    boolean anyOf(Set<QualifiedTable> held) {
        for (QualifiedTable t : tables) {
            if (held.contains(t)) {
                return true;
            }
        }
        return false;
    }
}
