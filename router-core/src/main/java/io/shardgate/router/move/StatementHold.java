package io.shardgate.router.move;

import io.shardgate.cache.QualifiedTable;
import io.shardgate.router.resultcache.Invalidation;
import io.shardgate.router.resultcache.StatementTables;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.Route;
import io.shardgate.sharding.plan.StatementKind;
import io.shardgate.sharding.plan.Targets;
import java.util.HashSet;
import java.util.Set;

/**
 * What a statement must do while moves are under way: run, wait for a cutover, be refused (DDL on
 * a moving table), or — while a switched move deletes the source's stale copies — run only when its
 * route proves it cannot reach them ({@link #duringCleanup}). Read off the normalized digest text with {@link StatementTables}, whose reads are a
 * superset of the tables a statement touches and whose writes fall back to "everything" when the
 * router cannot see a statement's effects (CALL, EXECUTE, unknown statements): both err towards
 * waiting, never towards a write reaching the old shard after the switch. Pure.
 */
public final class StatementHold {
    /** The outcome. */
    public enum Outcome {
        RUN,
        WAIT,
        REFUSE_DDL,
        /** It names a table being cleaned up: {@link #duringCleanup} decides on its route. */
        BY_ROUTE
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
        if (!tables.held().isEmpty() && (touches(writes, tables.held()) || mentions(schema, text, tables.held()))) {
            return Outcome.WAIT;
        }
        if (!tables.cleaning().isEmpty()
                && (touches(writes, tables.cleaning().keySet())
                        || mentions(schema, text, tables.cleaning().keySet()))) {
            return Outcome.BY_ROUTE;
        }
        return Outcome.RUN;
    }

    /**
     * RUN or WAIT for a statement {@link #decide} answered {@link Outcome#BY_ROUTE}: after a switch the
     * source still holds stale copies of the moved rows until the cleanup deleted them. A statement
     * planned by the switched rules that names one table being cleaned up (other tables have no stale
     * copies), has no subquery, and runs on one shard because of a top-level equality (or a one-row
     * INSERT) on that table's sharding key reaches only rows of that key (a join can only link rows
     * of the same key), and the key's rows are never stale where it is routed; it runs. A write runs only when {@code
     * keyWritesRun}: a unique index without the sharding column could make it meet a stale copy (a
     * duplicate-key error, an ON DUPLICATE KEY UPDATE of a row about to be deleted). Everything else
     * (several shards, a query rule's destination, joins, subqueries, older rules) waits for the end
     * of the cleanup.
     *
     * @param plan the statement's plan, or null when a query rule routes it without one
     * @param targets where this execution of {@code plan} runs, or null when it was not worked out
     */
    public static Outcome duringCleanup(MovingTables tables, String schema, String text, Plan plan, Targets targets) {
        if (plan == null
                || targets == null
                || targets.error() != null
                || targets.targets().size() != 1) {
            return Outcome.WAIT;
        }
        QualifiedTable table = null;
        for (QualifiedTable read : StatementTables.read(schema, text)) { // names; most are columns
            if (read.isAny()
                    || tables.held().contains(read)
                    || tables.cleaning().containsKey(read) && table != null) {
                return Outcome.WAIT; // a second table being cleaned up (or one held, or any)
            }
            if (tables.cleaning().containsKey(read)) {
                table = read;
            }
        }
        if (table == null) {
            return Outcome.WAIT;
        }
        MovingTables.Cleanup cleanup = tables.cleaning().get(table);
        Invalidation writes = StatementTables.write(schema, text);
        if (cleanup == null
                || plan.key().ruleVersion() < cleanup.rulesVersion()
                || writes.all()
                || !writes.schemas().isEmpty()
                || !(writes.isNone() || writes.tables().equals(Set.of(table)))
                || !onKeyOf(plan.route(), table)
                || selects(text) > (plan.kind() == StatementKind.SELECT ? 1 : 0)) {
            return Outcome.WAIT;
        }
        return switch (plan.kind()) {
            case SELECT -> Outcome.RUN;
            case INSERT, UPDATE, DELETE -> cleanup.keyWritesRun() ? Outcome.RUN : Outcome.WAIT;
            default -> Outcome.WAIT;
        };
    }

    /** Whether {@code route} picks its shard by {@code table}'s sharding key (without generating keys). */
    private static boolean onKeyOf(Route route, QualifiedTable table) {
        if (route instanceof Route.ByKey byKey) {
            return byKey.table().name().equalsIgnoreCase(table.table());
        }
        return route instanceof Route.SplitInsert insert
                && !insert.table().generatesKeys()
                && insert.table().name().equalsIgnoreCase(table.table());
    }

    /** How many SELECT keywords {@code text} holds (normalized: keywords stand between spaces or parentheses). */
    private static int selects(String text) {
        int n = 0;
        for (int i = 0; i + 6 <= text.length(); i++) {
            if (text.regionMatches(true, i, "SELECT", 0, 6)
                    && (i == 0 || !isWordChar(text.charAt(i - 1)))
                    && (i + 6 == text.length() || !isWordChar(text.charAt(i + 6)))) {
                n++;
            }
        }
        return n;
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '`';
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

    /**
     * The moving tables {@code text} may read or write (a superset, as {@link #decide} reads them):
     * what a transaction that runs it touches on the tables' shards.
     */
    public static Set<QualifiedTable> referenced(MovingTables tables, String schema, String text) {
        Set<QualifiedTable> out = new HashSet<>();
        Invalidation writes = StatementTables.write(schema, text);
        Set<QualifiedTable> reads = StatementTables.read(schema, text);
        for (QualifiedTable t : tables.moving().keySet()) {
            if (touches(writes, Set.of(t)) || reads.contains(t) || reads.contains(QualifiedTable.anyIn(t.schema()))) {
                out.add(t);
            }
        }
        return out;
    }

    /**
     * Whether a statement that must {@link Outcome#WAIT} for a cutover runs with the transaction it
     * belongs to instead: that transaction touched a held table of every move whose held tables the
     * statement may reach ({@code touched}: the moving tables its statements touched so far). It then
     * holds the source's lock of each such move, whose hold a router acknowledges only once it has
     * ended, so no cutover of theirs locks the source before; a move whose tables it has not touched
     * may be further on (acknowledged, locking), and the statement waits for it.
     */
    public static boolean runsWithItsTransaction(
            MovingTables tables, Set<QualifiedTable> touched, String schema, String text) {
        if (touched.isEmpty()) {
            return false; // the common case
        }
        Set<String> moves = new HashSet<>();
        for (QualifiedTable t : referenced(tables, schema, text)) {
            if (tables.held().contains(t)) {
                moves.add(tables.moving().get(t));
            }
        }
        for (String move : moves) {
            boolean touchedOne = false;
            for (QualifiedTable t : touched) {
                touchedOne |=
                        tables.held().contains(t) && move.equals(tables.moving().get(t));
            }
            if (!touchedOne) {
                return false;
            }
        }
        return !moves.isEmpty();
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
