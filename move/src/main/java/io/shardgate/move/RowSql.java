package io.shardgate.move;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The statements the mover runs on a table, as text with {@code ?} parameters. Pure. */
public final class RowSql {
    private RowSql() {}

    /**
     * The next {@code limit} rows in primary key order after the key bound by {@link #afterParameters}
     * ({@code after == false}: from the first row). The comparison is spelled out column by column
     * ({@code a > ? OR (a = ? AND b > ?)}), which MariaDB and MySQL both turn into an index range.
     */
    public static String chunk(RowLayout layout, boolean after, int limit) {
        TableShape shape = layout.shape();
        StringBuilder sql = new StringBuilder("SELECT ")
                .append(layout.selectList())
                .append(" FROM ")
                .append(shape.qualifiedName());
        if (after) {
            sql.append(" WHERE ").append(after(shape, 0));
        }
        sql.append(" ORDER BY ");
        for (int i = 0; i < shape.primaryKey().size(); i++) {
            sql.append(i == 0 ? "" : ", ").append(pkName(shape, i));
        }
        return sql.append(" LIMIT ").append(limit).toString();
    }

    /** The parameters of {@link #chunk} with {@code after}: the last key read, as the comparison needs it. */
    public static List<Object> afterParameters(Object[] lastKey) {
        List<Object> parameters = new ArrayList<>();
        for (int i = 0; i < lastKey.length; i++) {
            if (i < lastKey.length - 1) {
                parameters.add(lastKey[i]);
            }
            parameters.add(lastKey[i]);
        }
        // order: a > ? OR (a = ? AND (b > ? OR (b = ? AND c > ?))): each but the last column twice
        return Collections.unmodifiableList(parameters);
    }

    private static String after(TableShape shape, int i) {
        String column = pkName(shape, i);
        if (i == shape.primaryKey().size() - 1) {
            return column + " > ?";
        }
        return "(" + column + " > ? OR (" + column + " = ? AND " + after(shape, i + 1) + "))";
    }

    /**
     * The rows whose primary keys are the {@code keys} bound by {@link #keyParameters}, for a plain
     * (consistent, non-locking) read: a locking read names each key on its own ({@link
     * #lockingByKeys}).
     */
    public static String byKeys(RowLayout layout, int keys) {
        return "SELECT " + layout.selectList() + " FROM " + layout.shape().qualifiedName() + " WHERE "
                + keyMatch(layout.shape(), keys);
    }

    /**
     * The rows whose primary keys are the {@code keys} bound by {@link #keyParameters}, read with the
     * locking clause {@code lock} (" FOR UPDATE", " LOCK IN SHARE MODE NOWAIT"): one SELECT a key, an
     * equality on the whole primary key, joined by UNION ALL. Each is a unique search that locks that
     * record alone; an IN list ({@link #byKeys}) may be planned as a scan of the table (MariaDB does
     * so when the list is long for the table's size), and a locking scan under REPEATABLE READ locks
     * every row it passes, rows that clients write included.
     */
    public static String lockingByKeys(RowLayout layout, int keys, String lock) {
        if (keys < 1) {
            throw new IllegalArgumentException("no keys");
        }
        if (lock.isBlank()) {
            throw new IllegalArgumentException("no locking clause");
        }
        String one = "(SELECT " + layout.selectList() + " FROM "
                + layout.shape().qualifiedName() + " WHERE " + keyEquality(layout.shape()) + lock + ")";
        return String.join(" UNION ALL ", Collections.nCopies(keys, one));
    }

    /**
     * Deletes the one row whose primary key is bound (its columns in order): an equality on every key
     * column, which InnoDB answers by a unique search that locks that record alone. A list of keys
     * (WHERE id IN (...)) may be planned as a scan of the index instead (MariaDB does so for a long IN
     * list), and a scan under REPEATABLE READ locks every row it passes, rows that clients write
     * included.
     */
    public static String deleteOne(TableShape shape) {
        return "DELETE FROM " + shape.qualifiedName() + " WHERE " + keyEquality(shape);
    }

    private static String keyEquality(TableShape shape) {
        List<String> columns = new ArrayList<>();
        for (int i = 0; i < shape.primaryKey().size(); i++) {
            columns.add(pkName(shape, i) + " = ?");
        }
        return String.join(" AND ", columns);
    }

    /** The parameters of {@link #byKeys} and {@link #lockingByKeys}: each key's columns in order. */
    public static List<Object> keyParameters(List<Object[]> keys) {
        List<Object> parameters = new ArrayList<>();
        for (Object[] key : keys) {
            Collections.addAll(parameters, key);
        }
        return parameters;
    }

    /** Inserts {@code rows} rows of the layout's written columns. */
    public static String insert(RowLayout layout, int rows) {
        TableShape shape = layout.shape();
        StringBuilder sql =
                new StringBuilder("INSERT INTO ").append(shape.qualifiedName()).append(" (");
        List<Integer> written = layout.writtenColumns();
        for (int i = 0; i < written.size(); i++) {
            sql.append(i == 0 ? "" : ", ")
                    .append(TableShape.quote(shape.columns().get(written.get(i)).name()));
        }
        sql.append(") VALUES ");
        String tuple = "(" + String.join(", ", Collections.nCopies(written.size(), "?")) + ")";
        for (int r = 0; r < rows; r++) {
            sql.append(r == 0 ? "" : ", ").append(tuple);
        }
        return sql.toString();
    }

    private static String keyMatch(TableShape shape, int keys) {
        if (keys < 1) {
            throw new IllegalArgumentException("no keys");
        }
        int width = shape.primaryKey().size();
        if (width == 1) {
            return pkName(shape, 0) + " IN (" + String.join(", ", Collections.nCopies(keys, "?")) + ")";
        }
        List<String> one = new ArrayList<>();
        for (int i = 0; i < width; i++) {
            one.add(pkName(shape, i) + " = ?");
        }
        String tuple = "(" + String.join(" AND ", one) + ")";
        return String.join(" OR ", Collections.nCopies(keys, tuple));
    }

    private static String pkName(TableShape shape, int i) {
        return TableShape.quote(shape.columns().get(shape.primaryKey().get(i)).name());
    }
}
