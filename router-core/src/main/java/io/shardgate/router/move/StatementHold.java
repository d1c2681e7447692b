package io.shardgate.router.move;

import io.shardgate.cache.QualifiedTable;
import io.shardgate.router.cache.Invalidation;
import io.shardgate.router.cache.StatementTables;
import java.util.Set;

/**
 * What a statement must do while moves are under way: run, wait for a cutover, or be refused (DDL on
 * a moving table). Read off the normalized digest text with {@link StatementTables}, whose reads are a
 * superset of the tables a statement touches and whose writes fall back to "everything" when the
 * router cannot see a statement's effects (CALL, EXECUTE, unknown statements): both err towards
 * waiting, never towards a write reaching the old shard after the switch. Pure.
 */
public final class StatementHold {
    /** The outcome. */
    public enum Outcome {
        RUN,
        WAIT,
        REFUSE_DDL
    }

    private static final Set<String> DDL =
            Set.of("CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE", "OPTIMIZE", "REPAIR", "IMPORT", "DISCARD");

    private StatementHold() {}

    /** The outcome for {@code text} (normalized) in session schema {@code schema} (null: none). */
    public static Outcome decide(MovingTables tables, String schema, String text) {
        if (tables.none()) {
            return Outcome.RUN;
        }
        String first = StatementTables.firstWord(text);
        Invalidation writes = StatementTables.write(schema, text);
        if (first != null
                && DDL.contains(first)
                && (touches(writes, tables.moving().keySet())
                        || mentions(schema, text, tables.moving().keySet()))) {
            return Outcome.REFUSE_DDL; // (OPTIMIZE, REPAIR... are no writes to the cache: their names count)
        }
        if (tables.held().isEmpty()) {
            return Outcome.RUN;
        }
        return touches(writes, tables.held()) || mentions(schema, text, tables.held()) ? Outcome.WAIT : Outcome.RUN;
    }

    /** Whether {@code text} names (or may read, see {@link StatementTables#read}) one of {@code tables}. */
    private static boolean mentions(String schema, String text, Set<QualifiedTable> tables) {
        for (QualifiedTable read : StatementTables.read(schema, text)) {
            if (tables.contains(read) || read.isAny() && anyIn(tables, read.schema())) {
                return true;
            }
        }
        return false;
    }

    /** The move a refused DDL statement collides with, for the error message. */
    public static String moveOf(MovingTables tables, String schema, String text) {
        Invalidation writes = StatementTables.write(schema, text);
        for (var e : tables.moving().entrySet()) {
            if (writes.all()
                    || writes.schemas().contains(e.getKey().schema())
                    || writes.tables().contains(e.getKey())) {
                return e.getValue() + " (" + e.getKey().schema() + "."
                        + e.getKey().table() + ")";
            }
        }
        return "under way";
    }

    private static boolean anyIn(Set<QualifiedTable> tables, String schema) {
        for (QualifiedTable t : tables) {
            if (t.schema().equals(schema)) {
                return true;
            }
        }
        return false;
    }

    private static boolean touches(Invalidation writes, Set<QualifiedTable> tables) {
        if (writes.isNone()) {
            return false;
        }
        if (writes.all()) {
            return true;
        }
        for (QualifiedTable t : tables) {
            if (writes.schemas().contains(t.schema()) || writes.tables().contains(t)) {
                return true;
            }
        }
        return false;
    }
}
