package io.shardgate.move.binlog;

import io.shardgate.move.TableShape;
import io.shardgate.move.TableShape.Column;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the primary-key columns of a binary log row image into a {@link RowKey}: values that, bound
 * with JDBC {@code setObject} in {@code WHERE pk = ?} on the source, find exactly the logged row.
 *
 * <p>The library (mysql-binlog-connector-java, with {@code CHAR_AND_BINARY_AS_BYTE_ARRAY}) hands out
 * integers as signed Java numbers of the column's width, whatever the column's sign; strings and
 * binary strings as their bytes; DECIMAL as BigDecimal. Per key type:
 *
 * <ul>
 *   <li>TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT: signed as given; UNSIGNED ones re-read as
 *       unsigned of the column's width (a BIGINT UNSIGNED above 2^63 - 1 becomes a BigInteger).
 *   <li>CHAR, VARCHAR: the bytes decoded in the column's character set ({@link MySqlCharsets});
 *       a character set not known to decode exactly is refused when the move starts.
 *   <li>BINARY(n): the log drops trailing 0x00 bytes; they are put back, since a binary comparison
 *       does not pad. VARBINARY: the bytes.
 *   <li>DECIMAL: the BigDecimal.
 *   <li>Anything else (temporal types, floating point, ENUM, SET, BIT, BLOB/TEXT prefixes...):
 *       refused when the move starts, naming the column and its type.
 * </ul>
 */
public final class PrimaryKeyValues {

    private static final Pattern LENGTH = Pattern.compile("\\((\\d+)\\)");
    private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);

    private final TableShape table;
    private final Conversion[] conversions;

    private PrimaryKeyValues(TableShape table, Conversion[] conversions) {
        this.table = table;
        this.conversions = conversions;
    }

    /**
     * The conversions for {@code table}'s primary key.
     *
     * @throws IllegalArgumentException naming the first key column whose type or character set the
     *     catch-up cannot look a row up by
     */
    public static PrimaryKeyValues of(TableShape table) {
        List<Integer> key = table.primaryKey();
        Conversion[] conversions = new Conversion[key.size()];
        for (int i = 0; i < conversions.length; i++) {
            conversions[i] = conversion(table, table.columns().get(key.get(i)));
        }
        return new PrimaryKeyValues(table, conversions);
    }

    public TableShape table() {
        return table;
    }

    /**
     * The key of one row image. {@code included} says which columns the image holds ({@code row}
     * has one value per included column, in column order).
     *
     * @throws IllegalStateException when the image lacks a key column, holds NULL in one, or a value
     *     of another kind than the column's (the table is not what its shape says)
     */
    public RowKey key(Serializable[] row, BitSet included) {
        List<Integer> key = table.primaryKey();
        Object[] values = new Object[key.size()];
        for (int i = 0; i < values.length; i++) {
            int column = key.get(i);
            if (!included.get(column)) {
                throw new IllegalStateException("a row image of " + table.qualifiedName() + " lacks primary key column "
                        + TableShape.quote(table.columns().get(column).name())
                        + " (is binlog_row_image FULL for every session?)");
            }
            int index = included.get(0, column).cardinality();
            values[i] = value(i, row[index]);
        }
        return new RowKey(values);
    }

    /** The value to bind for key column {@code keyIndex} (0 = the key's first column) of a logged value. */
    public Object value(int keyIndex, Object logged) {
        Column column = table.columns().get(table.primaryKey().get(keyIndex));
        if (logged == null) {
            throw new IllegalStateException("primary key column " + TableShape.quote(column.name()) + " of "
                    + table.qualifiedName() + " is NULL in a row image");
        }
        try {
            return conversions[keyIndex].apply(logged);
        } catch (ClassCastException e) {
            throw new IllegalStateException(
                    "primary key column " + TableShape.quote(column.name()) + " of " + table.qualifiedName() + " ("
                            + column.columnType() + ") holds a "
                            + logged.getClass().getSimpleName()
                            + " in the binary log: the table is not what its shape says",
                    e);
        }
    }

    /** One key column's conversion; a ClassCastException means the log holds another type. */
    @FunctionalInterface
    private interface Conversion {
        Object apply(Object logged);
    }

    private static Conversion conversion(TableShape table, Column column) {
        boolean unsigned = column.unsigned();
        return switch (column.dataType()) {
            case "tinyint" -> unsigned ? v -> (long) (((Number) v).intValue() & 0xFF) : v -> (long) (Integer) v;
            case "smallint" -> unsigned ? v -> (long) (((Number) v).intValue() & 0xFFFF) : v -> (long) (Integer) v;
            case "mediumint" -> unsigned ? v -> (long) (((Number) v).intValue() & 0xFFFFFF) : v -> (long) (Integer) v;
            case "int" -> unsigned ? v -> ((Integer) v) & 0xFFFFFFFFL : v -> (long) (Integer) v;
            case "bigint" -> unsigned ? v -> unsignedLong((Long) v) : v -> (Long) v;
            case "decimal" -> v -> (BigDecimal) v;
            case "varbinary" -> v -> ((byte[]) v).clone();
            case "binary" -> {
                int length = length(table, column);
                yield v -> Arrays.copyOf((byte[]) v, Math.max(length, ((byte[]) v).length));
            }
            case "char", "varchar" -> {
                String charset = column.characterSet();
                if (charset == null || !MySqlCharsets.supported(charset)) {
                    throw refused(
                            table,
                            column,
                            "character set " + charset + ", which the catch-up does not decode exactly (it does "
                                    + MySqlCharsets.supportedNames() + ")");
                }
                yield v -> MySqlCharsets.decode(charset, (byte[]) v);
            }
            case "date", "datetime", "timestamp", "time", "year" ->
                throw refused(
                        table,
                        column,
                        "a temporal type: rows are not looked up by a temporal key from the binary log yet");
            default ->
                throw refused(
                        table,
                        column,
                        "a type the catch-up does not look rows up by (it does integers, DECIMAL, CHAR,"
                                + " VARCHAR, BINARY, VARBINARY)");
        };
    }

    private static Object unsignedLong(long signed) {
        return signed >= 0 ? (Object) signed : BigInteger.valueOf(signed).add(TWO_TO_64);
    }

    private static int length(TableShape table, Column column) {
        Matcher m = LENGTH.matcher(column.columnType());
        if (!m.find()) {
            throw refused(table, column, "whose length the catch-up cannot read");
        }
        return Integer.parseInt(m.group(1));
    }

    private static IllegalArgumentException refused(TableShape table, Column column, String why) {
        return new IllegalArgumentException("cannot follow " + table.qualifiedName() + " in the binary log: primary key"
                + " column " + TableShape.quote(column.name()) + " is " + column.columnType() + ", " + why);
    }
}
