package io.shardgate.router.adminsql;

import io.shardgate.admin.http.MoveControl;
import io.shardgate.router.net.TextResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * {@code stats_moves}: the cluster's online moves (docs/moves.md), oldest first, one row each as
 * their records in ZooKeeper stand, with the statements this router holds for them; and the moves'
 * two actions, through the same {@link MoveControl} as {@code /api/moves} (no second way to run a
 * move): {@code INSERT INTO stats_moves (schema_name, table_name, buckets, to_hostgroup [,
 * copy_rows_per_second]) VALUES (...)} starts one ({@code buckets}: {@code 'lo-hi'} or {@code
 * 'table'}), {@code UPDATE stats_moves SET state = 'cancelled' WHERE id = 'm-...'} cancels one,
 * {@code 'reversing'} switches a done whole-table move back, {@code 'cleaning_source'} cleans up its
 * source.
 */
final class MovesTable {
    static final String NAME = "stats_moves";
    static final List<String> COLUMNS = List.of(
            "id",
            "schema_name",
            "tables",
            "buckets",
            "from_hostgroups",
            "to_hostgroup",
            "state",
            "rows_copied",
            "rows_per_second",
            "binlog_rows",
            "lag_bytes",
            "diff_status",
            "held_statements",
            "hold_ms",
            "rows_deleted_on_source",
            "resumed",
            "reverse_rows",
            "reverse_lag_bytes",
            "error",
            "created_ms",
            "updated_ms");
    private static final Set<String> TEXT =
            Set.of("id", "schema_name", "tables", "buckets", "from_hostgroups", "state", "diff_status", "error");
    private static final Set<String> START_COLUMNS =
            Set.of("schema_name", "table_name", "buckets", "to_hostgroup", "copy_rows_per_second");

    private final MoveControl moves;
    private final IntSupplier heldStatements;

    /**
     * @param moves the router's move control, null when it has none (the table is empty, its actions refused)
     * @param heldStatements the statements this router holds for cutovers now
     */
    MovesTable(MoveControl moves, IntSupplier heldStatements) {
        this.moves = moves;
        this.heldStatements = heldStatements;
    }

    AdminResult.Rows rows() {
        List<List<Object>> rows = new ArrayList<>();
        if (moves != null) {
            List<Map<String, Object>> all;
            try {
                all = moves.list();
            } catch (Exception e) {
                throw new AdminSqlException(1105, "cannot list the moves: " + e.getMessage());
            }
            int held = heldStatements.getAsInt();
            for (Map<String, Object> move : all) {
                rows.add(row(move, held));
            }
        }
        return new AdminResult.Rows(columns(), rows);
    }

    static List<TextResultSet.Column> columns() {
        List<TextResultSet.Column> columns = new ArrayList<>();
        for (String name : COLUMNS) {
            columns.add(TEXT.contains(name) ? TextResultSet.Column.text(name) : TextResultSet.Column.integer(name));
        }
        return columns;
    }

    /**
     * One move's row from its record as {@link MoveControl#get} shows it; {@code held}: the statements
     * this router holds now, shown on the moves that hold (summed over them when several hold at once).
     */
    static List<Object> row(Map<String, Object> move, int held) {
        Map<String, Object> progress = map(move.get("progress"));
        String state = String.valueOf(move.get("state"));
        boolean holding = number(move.get("holdGeneration"), 0L) > 0 && isActive(state);
        List<Object> row = new ArrayList<>(COLUMNS.size());
        row.add(move.get("id"));
        row.add(move.get("schema"));
        row.add(joined(move.get("tables")));
        row.add(move.get("what"));
        row.add(joined(move.get("sources")));
        row.add(number(move.get("target"), null));
        row.add(state);
        row.add(number(progress.get("rows_copied"), 0L));
        row.add(number(progress.get("rows_per_second"), null));
        row.add(number(progress.get("binlog_rows"), 0L));
        row.add(number(progress.get("lag_bytes"), null));
        row.add(diffStatus(state, progress, move.get("tables"), (String) move.get("error")));
        row.add(holding ? (long) held : 0L);
        row.add(number(progress.get("hold_millis"), null));
        row.add(number(progress.get("rows_deleted_on_source"), null));
        row.add(number(progress.get("resumed"), 0L));
        row.add(number(progress.get("reverse_rows"), null));
        row.add(number(progress.get("reverse_lag_bytes"), null));
        row.add(move.get("error"));
        row.add(number(move.get("createdAtMillis"), null));
        row.add(number(move.get("updatedAtMillis"), null));
        return row;
    }

    /**
     * Where the verify phase stands: {@code pending} before it, {@code running} during it, {@code
     * equal (N rows)} once every table compared equal, {@code differs} when the move failed on rows
     * that kept differing, {@code not run} for a move that ended before it.
     */
    static String diffStatus(String state, Map<String, Object> progress, Object tables, String error) {
        if (state.equals("verifying")) {
            return "running";
        }
        if (error != null && error.startsWith("verify:")) {
            return "differs";
        }
        List<?> names = tables instanceof List<?> l ? l : List.of();
        long rows = 0;
        for (Object table : names) {
            Object verified = progress.get("verified." + table);
            if (verified == null) {
                return state.equals("copying") || state.equals("catching_up") ? "pending" : "not run";
            }
            rows += number(verified, 0L);
        }
        return "equal (" + rows + " rows)";
    }

    /** {@code INSERT INTO stats_moves}: starts a move per row; the OK names their ids. */
    AdminResult.Done insert(List<String> columns, List<List<Object>> rows) {
        if (columns == null) {
            throw new AdminSqlException(
                    1105,
                    "name the columns: INSERT INTO " + NAME + " (schema_name, table_name, buckets, to_hostgroup"
                            + " [, copy_rows_per_second]) VALUES (...)");
        }
        List<String> ids = new ArrayList<>();
        for (List<Object> values : rows) {
            if (values.size() != columns.size()) {
                throw new AdminSqlException(1136, "Column count doesn't match value count at row " + (ids.size() + 1));
            }
            Start start = Start.of(columns, values);
            if (moves == null) {
                throw new AdminSqlException(1105, "this router runs no move control");
            }
            try {
                ids.add(moves.start(start.schema(), start.table(), start.buckets(), start.to(), start.rowsPerSecond()));
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new AdminSqlException(1105, "move refused: " + e.getMessage());
            } catch (Exception e) {
                throw new AdminSqlException(1105, "cannot start the move: " + e.getMessage());
            }
        }
        return new AdminResult.Done(ids.size(), "started " + String.join(", ", ids));
    }

    /** A move to start, as an INSERT row gives it. */
    record Start(String schema, String table, String buckets, int to, long rowsPerSecond) {
        static Start of(List<String> columns, List<Object> values) {
            Map<String, Object> given = new LinkedHashMap<>();
            for (int i = 0; i < columns.size(); i++) {
                String column = columns.get(i).toLowerCase(Locale.ROOT);
                if (!START_COLUMNS.contains(column)) {
                    throw new AdminSqlException(
                            1054,
                            "Unknown column '" + column + "' in 'field list' (a move takes " + START_COLUMNS + ")");
                }
                given.put(column, values.get(i));
            }
            for (String required : List.of("schema_name", "table_name", "buckets", "to_hostgroup")) {
                if (given.get(required) == null) {
                    throw new AdminSqlException(1364, "Field '" + required + "' doesn't have a default value");
                }
            }
            Object to = given.get("to_hostgroup");
            if (!(to instanceof Long hostgroup) || hostgroup < 0 || hostgroup > Integer.MAX_VALUE) {
                throw new AdminSqlException(1366, "Incorrect integer value: '" + to + "' for column 'to_hostgroup'");
            }
            Object rate = given.getOrDefault("copy_rows_per_second", 0L);
            if (rate == null) {
                rate = 0L;
            }
            if (!(rate instanceof Long perSecond) || perSecond < 0) {
                throw new AdminSqlException(
                        1366, "Incorrect integer value: '" + rate + "' for column 'copy_rows_per_second'");
            }
            return new Start(
                    String.valueOf(given.get("schema_name")),
                    String.valueOf(given.get("table_name")),
                    String.valueOf(given.get("buckets")),
                    hostgroup.intValue(),
                    perSecond);
        }
    }

    /**
     * {@code UPDATE stats_moves SET state = 'cancelled' | 'reversing' | 'cleaning_source' WHERE id =
     * '...'}: cancels that move, switches a done whole-table move back to its source, or cleans up its
     * source; 1 row.
     */
    long update(Map<String, Object> set, Map<String, Object> where) {
        if (!set.keySet().equals(Set.of("state"))) {
            throw new AdminSqlException(
                    1288,
                    "The target table " + NAME + " of the UPDATE is updatable in its state column only:"
                            + " SET state = 'cancelled' | 'reversing' | 'cleaning_source' WHERE id = 'm-...'");
        }
        String state = set.get("state") instanceof String s ? s.trim().toLowerCase(Locale.ROOT) : null;
        if (state == null
                || !Set.of("cancelled", "reversing", "cleaning_source").contains(state)) {
            throw new AdminSqlException(
                    1366,
                    "Incorrect value '" + set.get("state") + "' for column 'state': only 'cancelled', 'reversing'"
                            + " and 'cleaning_source' are set");
        }
        if (!where.keySet().equals(Set.of("id")) || !(where.get("id") instanceof String id)) {
            throw new AdminSqlException(1105, "name one move: WHERE id = 'm-...'");
        }
        if (moves == null) {
            throw new AdminSqlException(1105, "this router runs no move control");
        }
        String verb = switch (state) {
            case "cancelled" -> "cancel";
            case "reversing" -> "reverse";
            default -> "clean up";
        };
        try {
            switch (state) {
                case "cancelled" -> moves.cancel(id);
                case "reversing" -> moves.reverse(id);
                default -> moves.cleanup(id);
            }
            return 1;
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new AdminSqlException(1105, "cannot " + verb + ": " + e.getMessage());
        } catch (Exception e) {
            throw new AdminSqlException(1105, "cannot " + verb + " " + id + ": " + e.getMessage());
        }
    }

    private static boolean isActive(String state) {
        return !Set.of("done", "reversed", "failed", "cancelled").contains(state);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    private static String joined(Object o) {
        if (o instanceof List<?> list) {
            List<String> parts = new ArrayList<>();
            list.forEach(v -> parts.add(String.valueOf(v)));
            return String.join(",", parts);
        }
        return o == null ? null : String.valueOf(o);
    }

    private static Long number(Object o, Long otherwise) {
        return o instanceof Number n ? n.longValue() : otherwise;
    }
}
