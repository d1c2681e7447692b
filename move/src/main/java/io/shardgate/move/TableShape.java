package io.shardgate.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The columns and primary key of one table on a shard, as {@code information_schema} describes them:
 * what the mover needs to read rows in key order, find them again by key, and write them. A table
 * without a primary key cannot be moved (rows could not be found again one by one): refused.
 *
 * @param columns in their ordinal order (the order of the binary log's row images)
 * @param primaryKey indexes into {@code columns}, in the key's order
 */
public record TableShape(String schema, String table, List<Column> columns, List<Integer> primaryKey) {

    /**
     * One column.
     *
     * @param dataType {@code DATA_TYPE}, lower case ({@code bigint}, {@code varchar}...)
     * @param columnType {@code COLUMN_TYPE} ({@code bigint(20) unsigned})
     * @param characterSet the column's character set, or null for a non-string column
     * @param generated a VIRTUAL or STORED generated column: the server computes it, nobody writes it
     */
    public record Column(String name, String dataType, String columnType, String characterSet, boolean generated) {
        public Column(String name, String dataType, String columnType, String characterSet) {
            this(name, dataType, columnType, characterSet, false);
        }

        public boolean unsigned() {
            return columnType.toLowerCase(Locale.ROOT).contains("unsigned");
        }
    }

    public TableShape {
        columns = List.copyOf(columns);
        primaryKey = List.copyOf(primaryKey);
        if (columns.isEmpty()) {
            throw new IllegalArgumentException(schema + "." + table + " has no columns (does it exist?)");
        }
        if (primaryKey.isEmpty()) {
            throw new IllegalArgumentException(
                    schema + "." + table + " has no primary key: a move finds rows again by their primary key");
        }
    }

    /** Reads the shape of {@code schema.table} on the server of {@code connection}. */
    public static TableShape load(Connection connection, String schema, String table) throws SQLException {
        List<Column> columns = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_SET_NAME, EXTRA FROM information_schema.COLUMNS"
                        + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION")) {
            s.setString(1, schema);
            s.setString(2, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    columns.add(new Column(
                            rs.getString(1),
                            rs.getString(2).toLowerCase(Locale.ROOT),
                            rs.getString(3),
                            rs.getString(4),
                            rs.getString(5).toUpperCase(Locale.ROOT).contains("GENERATED")));
                }
            }
        }
        List<Integer> primaryKey = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                        + " AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX")) {
            s.setString(1, schema);
            s.setString(2, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    primaryKey.add(indexOf(columns, rs.getString(1)));
                }
            }
        }
        return new TableShape(schema, table, columns, primaryKey);
    }

    /** The index of the column named {@code name} (case-insensitive, as MySQL compares column names). */
    public int column(String name) {
        int i = indexOf(columns, name);
        if (i < 0) {
            throw new IllegalArgumentException(schema + "." + table + " has no column " + name);
        }
        return i;
    }

    private static int indexOf(List<Column> columns, String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    /** {@code `schema`.`table`}, quoted for SQL. */
    public String qualifiedName() {
        return quote(schema) + "." + quote(table);
    }

    /** {@code name} as a quoted identifier. */
    public static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
