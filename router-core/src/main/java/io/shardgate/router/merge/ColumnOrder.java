package io.shardgate.router.merge;

import io.shardgate.protocol.row.MySqlDateTime;
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.ColumnFlags;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.time.Duration;
import java.util.Arrays;

/**
 * How MySQL compares two values of one result column, for ORDER BY, GROUP BY, DISTINCT, MIN and
 * MAX: numbers by value, temporal values by time, strings by collation. NULL sorts first.
 *
 * <p>Strings. A column definition carries the <em>result</em> character set's default collation
 * (e.g. 45 for every utf8mb4 column), not the column's own collation, but BINARY_FLAG marks binary
 * collations: so the collation is known up to its family. Charset 63 (VARBINARY, BLOB) compares
 * bytes; BINARY_FLAG (*_bin) compares UTF-8 bytes, which is code-point order, with PAD SPACE; every
 * other collation is treated as case- and accent-insensitive with PAD SPACE: trailing spaces are
 * ignored and each character weighs as its upper-case base letter (canonical decomposition without
 * combining marks), which is what utf8mb4_general_ci and latin1_swedish_ci do for the Latin letters
 * without language rules (swedish_ci orders Å, Ä, Ö after Z; that, expansions such as unicode_ci's
 * ß = ss and *_nopad_* collations are not reproduced). ENUM and SET values group by their text;
 * ordering them is refused (1235), as MySQL orders them by their index in the column definition,
 * which the rows do not carry. Hand-written because the exact weights live only in the server.
 */
final class ColumnOrder {
    private enum Kind {
        NUMBER,
        FLOATING,
        TEMPORAL,
        BYTES,
        BINARY_PADDED,
        CASE_INSENSITIVE,
        /** ENUM and SET: MySQL orders them by their position in the column's definition, which rows do not carry. */
        DEFINITION_ORDER
    }

    private final Kind kind;
    private final Charset charset;

    private ColumnOrder(Kind kind, Charset charset) {
        this.kind = kind;
        this.charset = charset;
    }

    static ColumnOrder of(ResultColumn column) {
        return switch (column.type()) {
            case TINY, SHORT, INT24, LONG, LONGLONG, YEAR, DECIMAL, NEWDECIMAL -> new ColumnOrder(Kind.NUMBER, null);
            case FLOAT, DOUBLE -> new ColumnOrder(Kind.FLOATING, null);
            case DATE, NEWDATE, DATETIME, DATETIME2, TIMESTAMP, TIMESTAMP2, TIME, TIME2 ->
                new ColumnOrder(Kind.TEMPORAL, null);
            default -> strings(column);
        };
    }

    private static ColumnOrder strings(ResultColumn column) {
        if (ColumnFlags.has(column.flags(), ColumnFlags.ENUM_FLAG)
                || ColumnFlags.has(column.flags(), ColumnFlags.SET_FLAG)) {
            return new ColumnOrder(Kind.DEFINITION_ORDER, null);
        }
        if (column.characterSet() == Collations.BINARY) {
            return new ColumnOrder(Kind.BYTES, null);
        }
        if (ColumnFlags.has(column.flags(), ColumnFlags.BINARY_FLAG)) {
            return new ColumnOrder(Kind.BINARY_PADDED, null);
        }
        String name = Collations.charsetOf(column.characterSet());
        Charset charset =
                name != null && name.startsWith("latin1") ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8;
        return new ColumnOrder(Kind.CASE_INSENSITIVE, charset);
    }

    /** Orders two values of this column, NULL first. */
    int compare(Object a, Object b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        return switch (kind) {
            case NUMBER -> compareNumbers(a, b);
            case FLOATING -> Double.compare(((Number) a).doubleValue() + 0.0, ((Number) b).doubleValue() + 0.0);
            case TEMPORAL ->
                a instanceof Duration d ? d.compareTo((Duration) b) : ((MySqlDateTime) a).compareTo((MySqlDateTime) b);
            case BYTES -> Arrays.compareUnsigned((byte[]) a, (byte[]) b);
            case BINARY_PADDED -> {
                byte[] x = (byte[]) a;
                byte[] y = (byte[]) b;
                yield Arrays.compareUnsigned(x, 0, padEnd(x), y, 0, padEnd(y));
            }
            case CASE_INSENSITIVE -> weights((byte[]) a).compareTo(weights((byte[]) b));
            case DEFINITION_ORDER ->
                throw MergeException.unsupported("ordering an ENUM or SET column on several shards (ORDER BY, MIN, MAX,"
                        + " GROUP BY): MySQL orders it by the position of its values in the column definition");
        };
    }

    /**
     * A value equal (equals and hashCode) for exactly the values this column compares equal: the
     * group or DISTINCT key of a cell. Null stays null.
     */
    Object key(Object v) {
        if (v == null) {
            return null;
        }
        return switch (kind) {
            case NUMBER -> decimal(v).stripTrailingZeros(); // 100 and 100.00 are one group
            case FLOATING -> ((Number) v).doubleValue() + 0.0; // -0.0 + 0.0 is 0.0: MySQL has one zero
            case TEMPORAL -> v;
            case BYTES, DEFINITION_ORDER -> new String((byte[]) v, StandardCharsets.ISO_8859_1);
            case BINARY_PADDED -> new String((byte[]) v, 0, padEnd((byte[]) v), StandardCharsets.ISO_8859_1);
            case CASE_INSENSITIVE -> weights((byte[]) v);
        };
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

    private static int padEnd(byte[] b) {
        int end = b.length;
        while (end > 0 && b[end - 1] == ' ') {
            end--;
        }
        return end;
    }

    /** The string of upper-case base letters that stands for a case- and accent-insensitive value. */
    private String weights(byte[] value) {
        String s = new String(value, 0, padEnd(value), charset);
        StringBuilder w = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (cp < 0x80) {
                w.append((char) (cp >= 'a' && cp <= 'z' ? cp - 32 : cp));
            } else if (cp > 0xFFFF) {
                w.append('\uFFFD'); // general_ci gives every supplementary character one weight
            } else {
                String base = Normalizer.normalize(String.valueOf((char) cp), Normalizer.Form.NFD);
                w.append(Character.toUpperCase(base.charAt(0)));
            }
        }
        return w.toString();
    }
}
