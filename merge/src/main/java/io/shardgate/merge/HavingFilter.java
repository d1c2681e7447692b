package io.shardgate.merge;

import io.shardgate.protocol.row.TextValue;
import io.shardgate.protocol.type.MySqlType;
import io.shardgate.sharding.plan.HavingCondition;
import io.shardgate.sharding.plan.MergeExpression;
import io.shardgate.sharding.plan.MergeExpression.ColumnValue;
import io.shardgate.sharding.plan.MergeExpression.Constant;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Evaluates a resolved {@link HavingCondition} on merged groups as MySQL would: NULL makes a
 * comparison UNKNOWN (and NOT UNKNOWN is UNKNOWN); numbers compare by value; a string column
 * compares with a string by its collation; a date/time column with a string parsed as that type;
 * a number with a string as doubles (the string's leading number, as MySQL converts it).
 */
final class HavingFilter {
    private static final Pattern LEADING_NUMBER =
            Pattern.compile("\\s*([+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)?");

    private final HavingCondition condition;
    private final ResultColumn[] columns;
    private final ColumnOrder[] orders;
    private final int clientColumns;

    HavingFilter(HavingCondition condition, ResultColumn[] columns, ColumnOrder[] orders, int clientColumns) {
        this.condition = condition;
        this.columns = columns;
        this.orders = orders;
        this.clientColumns = clientColumns;
    }

    /** Whether the group is kept: the condition is TRUE (not FALSE, not UNKNOWN). */
    boolean keeps(MergedRow row) {
        return Boolean.TRUE.equals(evaluate(condition, row));
    }

    /** TRUE, FALSE or null for UNKNOWN. */
    private Boolean evaluate(HavingCondition c, MergedRow row) {
        if (c instanceof HavingCondition.And and) {
            Boolean result = Boolean.TRUE;
            for (HavingCondition o : and.operands()) {
                Boolean v = evaluate(o, row);
                if (Boolean.FALSE.equals(v)) {
                    return false;
                }
                if (v == null) {
                    result = null;
                }
            }
            return result;
        }
        if (c instanceof HavingCondition.Or or) {
            Boolean result = Boolean.FALSE;
            for (HavingCondition o : or.operands()) {
                Boolean v = evaluate(o, row);
                if (Boolean.TRUE.equals(v)) {
                    return true;
                }
                if (v == null) {
                    result = null;
                }
            }
            return result;
        }
        if (c instanceof HavingCondition.Not not) {
            Boolean v = evaluate(not.operand(), row);
            return v == null ? null : !v;
        }
        if (c instanceof HavingCondition.IsNull isNull) {
            return (value(isNull.operand(), row) == null) != isNull.negated();
        }
        HavingCondition.Compare compare = (HavingCondition.Compare) c;
        Object left = value(compare.left(), row);
        Object right = value(compare.right(), row);
        if (left == null || right == null) {
            return null;
        }
        return compare.op().holds(compare(compare.left(), left, compare.right(), right));
    }

    private Object value(MergeExpression.Leaf operand, MergedRow row) {
        if (operand instanceof Constant k) {
            return k.value();
        }
        return row.value(at((ColumnValue) operand));
    }

    private int at(ColumnValue v) {
        int at = v.column().fromEnd()
                ? clientColumns + v.column().index()
                : v.column().index();
        if (at < 0 || at >= columns.length) {
            throw new MergeException("HAVING refers to column " + (at + 1) + " of " + columns.length);
        }
        return at;
    }

    private int compare(
            MergeExpression.Leaf leftOperand, Object left, MergeExpression.Leaf rightOperand, Object right) {
        if (leftOperand instanceof ColumnValue c) {
            return compareWithColumn(at(c), left, right);
        }
        if (rightOperand instanceof ColumnValue c) {
            return -compareWithColumn(at(c), right, left);
        }
        return compareLoosely(left, right);
    }

    /** A column's value against another value, in the column's terms where MySQL uses them. */
    private int compareWithColumn(int column, Object value, Object other) {
        MySqlType type = columns[column].type();
        boolean text = value instanceof byte[];
        if (text && (other instanceof String || other instanceof byte[])) {
            return orders[column].compareValues(value, bytes(other));
        }
        if (isTemporal(type) && (other instanceof String || other instanceof byte[])) {
            try {
                return orders[column].compareValues(value, TextValue.parse(bytes(other), type, false));
            } catch (IllegalArgumentException e) {
                throw MergeException.unsupported("HAVING that compares a " + type + " with '"
                        + new String(bytes(other), StandardCharsets.UTF_8) + "' across shards");
            }
        }
        return compareLoosely(value, other);
    }

    /** Numbers by value (doubles when either side is approximate or a string), strings as bytes. */
    private static int compareLoosely(Object a, Object b) {
        if (isExact(a) && isExact(b)) {
            return decimal(a).compareTo(decimal(b));
        }
        if ((a instanceof byte[] || a instanceof String) && (b instanceof byte[] || b instanceof String)) {
            return java.util.Arrays.compareUnsigned(bytes(a), bytes(b));
        }
        return Double.compare(toDouble(a), toDouble(b));
    }

    private static boolean isTemporal(MySqlType type) {
        return switch (type) {
            case DATE, NEWDATE, DATETIME, DATETIME2, TIMESTAMP, TIMESTAMP2, TIME, TIME2 -> true;
            default -> false;
        };
    }

    private static boolean isExact(Object v) {
        return v instanceof Long || v instanceof BigDecimal || v instanceof BigInteger || v instanceof Integer;
    }

    private static BigDecimal decimal(Object v) {
        if (v instanceof BigDecimal d) {
            return d;
        }
        if (v instanceof BigInteger i) {
            return new BigDecimal(i);
        }
        return BigDecimal.valueOf(((Number) v).longValue());
    }

    private static double toDouble(Object v) {
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        if (v instanceof byte[] || v instanceof String) {
            Matcher m = LEADING_NUMBER.matcher(new String(bytes(v), StandardCharsets.ISO_8859_1));
            return m.lookingAt() && m.group(1) != null ? Double.parseDouble(m.group(1)) : 0.0;
        }
        throw MergeException.unsupported(
                "HAVING that compares a " + v.getClass().getSimpleName() + " with a number across shards");
    }

    private static byte[] bytes(Object v) {
        return v instanceof byte[] b ? b : v.toString().getBytes(StandardCharsets.UTF_8);
    }
}
