package io.shardgate.move;

import io.shardgate.move.TableShape.Column;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * How the mover reads the rows of one table so that writing them elsewhere stores the same values,
 * and how it binds their primary key to find them again. Pure: the SQL text and the conversions.
 *
 * <p>Values travel as binary strings ({@code CAST(c AS BINARY)}; Connector/J refuses {@code
 * character_set_results = binary}, which would do the same for the whole session): a string column's
 * stored bytes, written back as a {@code _binary} literal with no character set conversion on the
 * way; numbers and temporals as the server's exact text (with {@code time_zone = '+00:00'} on both
 * sides for TIMESTAMP). Two types are not exact as text and are read through an
 * expression: FLOAT prints 6 digits ({@code CAST(c AS DOUBLE)} is exact and rounds back to the same
 * float), BIT arrives as raw bytes that a string would not write back ({@code CAST(c AS UNSIGNED)}).
 * Each row also carries its primary key in a form to bind (strings through {@code CONVERT(c USING
 * utf8mb4)}, so that {@code WHERE c = ?} compares under the column's collation) and its sharding key
 * as the rules read it.
 */
public final class RowLayout {
    private static final Set<String> INTEGERS = Set.of("tinyint", "smallint", "mediumint", "int", "bigint");
    private static final Set<String> STRINGS =
            Set.of("char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set");
    private static final Set<String> BINARIES = Set.of("binary", "varbinary");
    private static final Set<String> TEMPORALS = Set.of("date", "datetime", "timestamp", "time", "year");

    private final TableShape shape;
    private final MovingRows moving;
    private final int shardKeyColumn;
    private final String selectList;
    private final List<Integer> written;

    public RowLayout(TableShape shape, MovingRows moving) {
        this.shape = shape;
        this.moving = moving;
        this.shardKeyColumn = moving.byKey() ? shape.column(moving.keyColumn()) : -1;
        for (int pk : shape.primaryKey()) {
            Column c = shape.columns().get(pk);
            if (!INTEGERS.contains(c.dataType())
                    && !STRINGS.contains(c.dataType())
                    && !BINARIES.contains(c.dataType())
                    && !TEMPORALS.contains(c.dataType())
                    && !c.dataType().equals("decimal")) {
                throw new IllegalArgumentException(shape.qualifiedName() + ": primary key column " + c.name() + " is "
                        + c.columnType() + "; a move finds rows by integer, decimal, string, binary or temporal keys");
            }
        }
        List<String> items = new ArrayList<>();
        List<Integer> writtenColumns = new ArrayList<>();
        for (int i = 0; i < shape.columns().size(); i++) {
            Column c = shape.columns().get(i);
            items.add(readExpression(c));
            if (!c.generated()) {
                writtenColumns.add(i);
            }
        }
        for (int pk : shape.primaryKey()) {
            items.add(bindExpression(shape.columns().get(pk)));
        }
        if (shardKeyColumn >= 0) {
            items.add(bindExpression(shape.columns().get(shardKeyColumn)));
        }
        this.selectList = String.join(", ", items);
        this.written = List.copyOf(writtenColumns);
    }

    public TableShape shape() {
        return shape;
    }

    public MovingRows moving() {
        return moving;
    }

    /** The select list of every read: the columns, then the primary key and the sharding key to bind. */
    public String selectList() {
        return selectList;
    }

    /** How many items {@link #selectList()} has. */
    public int width() {
        return shape.columns().size() + shape.primaryKey().size() + (shardKeyColumn >= 0 ? 1 : 0);
    }

    /** The columns an INSERT writes (all but generated ones), as indexes into the shape's columns. */
    public List<Integer> writtenColumns() {
        return written;
    }

    /** The row read by {@link #selectList()}, from the bytes of its items. */
    public Row row(byte[][] items) {
        int n = shape.columns().size();
        byte[][] values = new byte[n][];
        System.arraycopy(items, 0, values, 0, n);
        Object[] pk = new Object[shape.primaryKey().size()];
        for (int i = 0; i < pk.length; i++) {
            pk[i] = bindValue(shape.columns().get(shape.primaryKey().get(i)), items[n + i]);
        }
        Object shardKey =
                shardKeyColumn >= 0 ? bindValue(shape.columns().get(shardKeyColumn), items[n + pk.length]) : null;
        return new Row(values, pk, shardKey);
    }

    /** Whether {@code row} moves. */
    public boolean moves(Row row) {
        return moving.moves(row.shardKey());
    }

    /** The value to bind for column {@code c} of a row, as {@code setObject} takes it. */
    public Object writeValue(int column, byte[] value) {
        Column c = shape.columns().get(column);
        if (value == null) {
            return null;
        }
        if (c.dataType().equals("bit")) {
            return new BigInteger(new String(value, StandardCharsets.US_ASCII));
        }
        return value;
    }

    /** Every item is read as a binary string: Connector/J hands out any such value as its bytes. */
    static String readExpression(Column c) {
        String q = TableShape.quote(c.name());
        return switch (c.dataType()) {
            case "float" -> binary("CAST(" + q + " AS DOUBLE)");
            case "bit" -> binary("CAST(" + q + " AS UNSIGNED)");
            default -> binary(q);
        };
    }

    static String bindExpression(Column c) {
        String q = TableShape.quote(c.name());
        return binary(STRINGS.contains(c.dataType()) ? "CONVERT(" + q + " USING utf8mb4)" : q);
    }

    private static String binary(String expression) {
        return "CAST(" + expression + " AS BINARY)";
    }

    /** The text (or bytes) of a key item read by {@link #bindExpression} as a value to bind. */
    static Object bindValue(Column c, byte[] item) {
        if (item == null) {
            return null;
        }
        if (BINARIES.contains(c.dataType())) {
            return item;
        }
        String text = new String(item, StandardCharsets.UTF_8);
        if (INTEGERS.contains(c.dataType())) {
            BigInteger value = new BigInteger(text);
            return value.bitLength() < 64 ? (Object) value.longValue() : value;
        }
        if (c.dataType().equals("decimal")) {
            return new BigDecimal(text);
        }
        return text;
    }
}
