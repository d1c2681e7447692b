package io.shardgate.merge;

import io.shardgate.protocol.row.MySqlDateTime;
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.ColumnFlags;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * How MySQL compares two values of one result column, for ORDER BY, GROUP BY, DISTINCT, MIN, MAX
 * and COUNT(DISTINCT): numbers by value, temporal values by time, strings by their collation. NULL
 * sorts first.
 *
 * <p>Strings. A column definition carries only the result character set's default collation, not
 * the column's own, and no library reproduces every MySQL collation byte for byte; so the planner
 * asks each shard for the server's own weights of every string the merge compares, as hidden
 * columns ({@link io.shardgate.sharding.plan.MergeSpec.Weights}), and two strings compare as their
 * weights do ({@link WeightStrings}: unsigned bytes, PAD SPACE by the weight of a space). Equal
 * weights are one group, one DISTINCT row. Binary strings (charset 63) compare byte by byte, as the
 * server does; table and database names (SHOW TABLES) too, as the server lists them. A non-binary
 * string without weights (the columns of {@code *}, an item the merge computes, a HAVING constant),
 * a NULL weight of a non-NULL string, values of two collations in one column and a multi-level
 * collation are refused (1235), never guessed. ENUM and SET
 * values group by their text (a member's text is unique); ordering them is refused, as MySQL orders
 * them by their position in the column definition, which the rows do not carry.
 */
final class ColumnOrder {
    private enum Kind {
        NUMBER,
        FLOATING,
        TEMPORAL,
        BYTES,
        WEIGHTED,
        UNWEIGHED,
        /** ENUM and SET: MySQL orders them by their position in the column's definition, which rows do not carry. */
        DEFINITION_ORDER
    }

    private final Kind kind;
    private final int column;
    private final int weight;
    private final int pad;
    private final int characterSet;
    /** The collation of the first string compared (see {@link #padOf}); the merge is one statement's. */
    private String collation;

    private ColumnOrder(Kind kind, int column, int weight, int pad, int characterSet) {
        this.kind = kind;
        this.column = column;
        this.weight = weight;
        this.pad = pad;
        this.characterSet = characterSet;
    }

    /**
     * The ordering of shard column {@code at}.
     *
     * @param weight the shard column of its collation weights, or -1 when the shards send none
     * @param pad the shard column of the weight of two spaces in its collation (empty: NO PAD)
     * @param bytewise strings compare byte by byte (names of tables and databases)
     */
    static ColumnOrder of(ResultColumn definition, int at, int weight, int pad, boolean bytewise) {
        Kind kind = switch (definition.type()) {
            case TINY, SHORT, INT24, LONG, LONGLONG, YEAR, DECIMAL, NEWDECIMAL -> Kind.NUMBER;
            case FLOAT, DOUBLE -> Kind.FLOATING;
            case DATE, NEWDATE, DATETIME, DATETIME2, TIMESTAMP, TIMESTAMP2, TIME, TIME2 -> Kind.TEMPORAL;
            default -> strings(definition, weight >= 0, bytewise);
        };
        return new ColumnOrder(kind, at, weight, pad, definition.characterSet());
    }

    private static Kind strings(ResultColumn column, boolean weighed, boolean bytewise) {
        if (ColumnFlags.has(column.flags(), ColumnFlags.ENUM_FLAG)
                || ColumnFlags.has(column.flags(), ColumnFlags.SET_FLAG)) {
            return Kind.DEFINITION_ORDER;
        }
        if (column.characterSet() == Collations.BINARY || bytewise) {
            return Kind.BYTES;
        }
        return weighed ? Kind.WEIGHTED : Kind.UNWEIGHED;
    }

    /** Orders two rows by this column, NULL first. */
    int compare(MergedRow a, MergedRow b) {
        Object x = a.value(column);
        Object y = b.value(column);
        if (x == null || y == null) {
            return x == null ? (y == null ? 0 : -1) : 1;
        }
        if (kind == Kind.WEIGHTED) {
            byte[] padA = padOf(a);
            padOf(b);
            return WeightStrings.compare(weighing(a, weight), weighing(b, weight), padA, collation);
        }
        return compareValues(x, y);
    }

    /**
     * Orders two non-NULL values of this column (HAVING compares a column with a constant): numbers,
     * times and binary strings; strings of a collation are refused, as a constant has no weights.
     */
    int compareValues(Object a, Object b) {
        return switch (kind) {
            case NUMBER -> compareNumbers(a, b);
            case FLOATING -> Double.compare(((Number) a).doubleValue() + 0.0, ((Number) b).doubleValue() + 0.0);
            case TEMPORAL ->
                a instanceof Duration d ? d.compareTo((Duration) b) : ((MySqlDateTime) a).compareTo((MySqlDateTime) b);
            case BYTES -> Arrays.compareUnsigned((byte[]) a, (byte[]) b);
            case WEIGHTED, UNWEIGHED -> throw unweighed();
            case DEFINITION_ORDER ->
                throw MergeException.unsupported("ordering an ENUM or SET column on several shards (ORDER BY, MIN, MAX,"
                        + " GROUP BY): MySQL orders it by the position of its values in the column definition");
        };
    }

    /**
     * A value equal (equals and hashCode) for exactly the rows this column compares equal: the
     * group or DISTINCT key of a row's cell. Null stays null.
     */
    Object key(MergedRow row) {
        Object v = row.value(column);
        if (v == null) {
            return null;
        }
        return switch (kind) {
            case NUMBER -> decimal(v).stripTrailingZeros(); // 100 and 100.00 are one group
            case FLOATING -> ((Number) v).doubleValue() + 0.0; // -0.0 + 0.0 is 0.0: MySQL has one zero
            case TEMPORAL -> v;
            case BYTES, DEFINITION_ORDER -> new String((byte[]) v, StandardCharsets.ISO_8859_1);
            case WEIGHTED -> {
                byte[] p = padOf(row);
                yield WeightStrings.key(weighing(row, weight), p, collation);
            }
            case UNWEIGHED -> throw unweighed();
        };
    }

    /**
     * The weight of two spaces the shard sent beside a string of this column, after its collation's
     * name and ':'; every value of the column must come with the same collation (the SELECTs of a
     * UNION may differ), else MySQL would compare them by a third one.
     */
    private byte[] padOf(MergedRow row) {
        byte[] p = weighing(row, pad);
        int colon = 0;
        while (colon < p.length && p[colon] != ':') {
            colon++;
        }
        if (colon == p.length) {
            throw new MergeException("a shard sent a collation weight without its collation");
        }
        String name = new String(p, 0, colon, StandardCharsets.ISO_8859_1);
        if (collation == null) {
            collation = name;
        } else if (!collation.equals(name)) {
            throw MergeException.unsupported("comparing strings of collations " + collation + " and " + name
                    + " in one column on several shards");
        }
        return Arrays.copyOfRange(p, colon + 1, p.length);
    }

    /** The weight (or pad) the shard sent beside a non-NULL string of this column. */
    private byte[] weighing(MergedRow row, int at) {
        MergedRow source = row.source(column);
        Object w = source == null ? null : source.value(at);
        if (!(w instanceof byte[] bytes)) {
            throw MergeException.unsupported("comparing a string on several shards whose collation weight the server"
                    + " did not give (WEIGHT_STRING is NULL, as for a value longer than max_allowed_packet)");
        }
        return bytes;
    }

    private MergeException unweighed() {
        String charset = Collations.charsetOf(characterSet);
        return MergeException.unsupported("comparing " + (charset == null ? "" : charset + " ")
                + "strings on several shards without their collation weights (a column of SELECT *, an item"
                + " computed from aggregates, a HAVING condition on a string): MySQL compares them by the column's"
                + " collation");
    }

    private static int compareNumbers(Object a, Object b) {
        if (a instanceof Long x && b instanceof Long y) {
            return Long.compare(x, y);
        }
        return decimal(a).compareTo(decimal(b));
    }

    private static BigDecimal decimal(Object v) {
        if (v instanceof BigDecimal d) {
            return d;
        }
        if (v instanceof BigInteger i) {
            return new BigDecimal(i);
        }
        if (v instanceof Long l) {
            return BigDecimal.valueOf(l);
        }
        return new BigDecimal(v.toString());
    }
}
