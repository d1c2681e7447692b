package io.shardgate.it.proxy;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Everything a driver reports about a result: column metadata and, per cell, the {@code getObject}
 * value and the {@code getString} text. Two snapshots are equal when a client could not tell the
 * results apart, which is how a result through the router is compared with the shard's own.
 */
public record ResultSnapshot(List<Column> columns, List<List<Cell>> rows) {

    /** A column definition as the driver decoded it. */
    public record Column(
            String label,
            String name,
            String table,
            String catalog,
            int jdbcType,
            String typeName,
            int precision,
            int scale,
            int nullable,
            boolean signed,
            String javaClass) {}

    /** One value: {@code object} is the driver's Java value, {@code text} its string form. */
    public record Cell(Object object, String text) {}

    /** Reads the whole result set. */
    public static ResultSnapshot of(ResultSet rs) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        List<Column> columns = new ArrayList<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
            columns.add(new Column(
                    meta.getColumnLabel(i),
                    meta.getColumnName(i),
                    meta.getTableName(i),
                    meta.getCatalogName(i),
                    meta.getColumnType(i),
                    meta.getColumnTypeName(i),
                    meta.getPrecision(i),
                    meta.getScale(i),
                    meta.isNullable(i),
                    meta.isSigned(i),
                    meta.getColumnClassName(i)));
        }
        List<List<Cell>> rows = new ArrayList<>();
        while (rs.next()) {
            List<Cell> row = new ArrayList<>(columns.size());
            for (int i = 1; i <= columns.size(); i++) {
                row.add(new Cell(object(rs, i), rs.getString(i)));
            }
            rows.add(row);
        }
        return new ResultSnapshot(List.copyOf(columns), List.copyOf(rows));
    }

    /**
     * The driver's Java value; byte arrays as hex. A value the driver refuses to convert (Connector/J
     * and a negative TIME) becomes the refusal's message, which must then match as well.
     */
    private static Object object(ResultSet rs, int column) {
        try {
            Object value = rs.getObject(column);
            return value instanceof byte[] bytes ? hex(bytes) : value;
        } catch (SQLException e) {
            return "getObject failed: " + e.getMessage();
        }
    }

    /** The cell at a 0-based row and a column label. */
    public Cell cell(int row, String label) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).label().equalsIgnoreCase(label)) {
                return rows.get(row).get(i);
            }
        }
        throw new IllegalArgumentException("no column " + label + " in " + columns);
    }

    static String hex(byte[] bytes) {
        return "0x" + HexFormat.of().formatHex(bytes);
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        out.append(columns.stream().map(Column::label).toList()).append('\n');
        for (List<Cell> row : rows.subList(0, Math.min(rows.size(), 20))) {
            out.append(Arrays.toString(row.toArray())).append('\n');
        }
        if (rows.size() > 20) {
            out.append("... ").append(rows.size() - 20).append(" more rows\n");
        }
        return out.toString();
    }
}
