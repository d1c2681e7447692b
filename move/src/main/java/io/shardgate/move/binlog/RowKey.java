package io.shardgate.move.binlog;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;

/**
 * The primary key of one row, as values to bind with JDBC {@code setObject} so that {@code WHERE pk1 =
 * ? AND pk2 = ?} on the source finds exactly that row (see {@link PrimaryKeyValues}). Equal when the
 * values are (byte arrays by content), so a transaction that changes a row twice reports it once.
 */
public final class RowKey {
    private final Object[] values;

    RowKey(Object[] values) {
        this.values = values.clone();
    }

    /** A key of the given values (Long, BigInteger, BigDecimal, String, byte[]), in the key's column order. */
    public static RowKey of(Object... values) {
        return new RowKey(values);
    }

    /** The values in the key's column order; byte arrays are copies. */
    public List<Object> values() {
        return Arrays.stream(values)
                .map(v -> v instanceof byte[] b ? b.clone() : v)
                .toList();
    }

    /** The values as an array of their own (byte arrays copied), as {@code KeyRefresh} takes keys. */
    public Object[] toArray() {
        return values().toArray();
    }

    public int size() {
        return values.length;
    }

    /** Binds the key's values to {@code statement}'s parameters {@code first}, {@code first + 1}... */
    public void bind(PreparedStatement statement, int first) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            statement.setObject(first + i, values[i] instanceof byte[] b ? b.clone() : values[i]);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowKey other && Arrays.deepEquals(values, other.values);
    }

    @Override
    public int hashCode() {
        return Arrays.deepHashCode(values);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("(");
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                s.append(", ");
            }
            s.append(
                    values[i] instanceof byte[] b
                            ? "0x" + java.util.HexFormat.of().formatHex(b)
                            : values[i]);
        }
        return s.append(')').toString();
    }
}
