package io.shardgate.merge;

import io.shardgate.protocol.type.MySqlType;
import io.shardgate.sharding.plan.MergeExpression;
import io.shardgate.sharding.plan.MergeSpec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.function.ToIntFunction;

/**
 * A select item over aggregates computed per merged group from the merged aggregates, in the type
 * the shards reported for the item: DOUBLE and FLOAT items in floating point, others in exact
 * decimal arithmetic, the result rounded half away from zero to the item's decimals (DECIMAL) or
 * checked into a BIGINT. The planner admits a division only where its exact quotient, rounded
 * once, is MySQL's answer; division by zero is NULL, as MySQL answers a SELECT. A value that is not
 * a number (a MAX over dates) stops the merge with an error rather than guess. Stateless: one per
 * column, shared by every group.
 */
final class ComputedColumn {
    /** Digits a quotient keeps before its final rounding: past MySQL's largest scale, truncated. */
    private static final int QUOTIENT_SCALE = 40;

    private static final int NOT_FIXED_DEC = 31;

    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal TWO_POW_63_PLUS_ONE = new BigDecimal("9223372036854775809");
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private final MergeExpression expression;
    private final ResultColumn column;
    private final boolean floating;
    /**
     * A signed integer item: MySQL checks every step of its integer arithmetic ({@code (MAX(a) -
     * MIN(b)) - MAX(a)} fails at the inner minus), so the merge checks each step too.
     */
    private final boolean signedInteger;

    private final ToIntFunction<io.shardgate.sharding.plan.MergeSpec.Column> columnIndex;

    ComputedColumn(
            MergeExpression expression,
            ResultColumn column,
            ToIntFunction<io.shardgate.sharding.plan.MergeSpec.Column> columnIndex) {
        this.expression = expression;
        this.column = column;
        this.floating = column.type() == MySqlType.DOUBLE || column.type() == MySqlType.FLOAT;
        this.signedInteger = !column.unsigned()
                && switch (column.type()) {
                    case TINY, SHORT, INT24, LONG, LONGLONG -> true;
                    default -> false;
                };
        this.columnIndex = columnIndex;
    }

    /** The item's value in {@code row} (a merged group), null for SQL NULL. */
    Object value(MergedRow row) {
        if (floating) {
            Double d = (Double) evaluate(expression, row, true);
            return d == null || d.isNaN() || d.isInfinite() ? null : d;
        }
        BigDecimal d = (BigDecimal) evaluate(expression, row, false);
        if (d == null) {
            return null;
        }
        return switch (column.type()) {
            case TINY, SHORT, INT24, LONG, LONGLONG, YEAR -> integer(d, column.unsigned());
            case DECIMAL, NEWDECIMAL ->
                column.decimals() >= NOT_FIXED_DEC ? d : d.setScale(column.decimals(), RoundingMode.HALF_UP);
            default ->
                throw MergeException.unsupported(
                        "an expression over aggregates typed " + column.type() + " computed by the merge");
        };
    }

    /** The value as the item's integer type: a signed BIGINT, or BIGINT UNSIGNED when the shards said so. */
    private static Object integer(BigDecimal d, boolean unsigned) {
        BigInteger i = d.setScale(0, RoundingMode.HALF_UP).toBigInteger();
        if (!unsigned && i.bitLength() < 64) {
            return i.longValue();
        }
        if (unsigned && i.signum() >= 0 && i.bitLength() <= 64) {
            return i.bitLength() < 64 ? (Object) i.longValue() : i;
        }
        // MySQL's answer to the same statement on one server (a signed product past 2^63 - 1 does
        // not become unsigned)
        throw MergeException.outOfRange(
                (unsigned ? "BIGINT UNSIGNED" : "BIGINT") + " value is out of range in '" + i + "'");
    }

    /** A Double (floating) or BigDecimal (exact) value, null for NULL. */
    private Object evaluate(MergeExpression e, MergedRow row, boolean floating) {
        if (e instanceof MergeExpression.ColumnValue c) {
            return number(row.value(columnIndex.applyAsInt(c.column())), floating);
        }
        if (e instanceof MergeExpression.Constant c) {
            return number(c.value(), floating);
        }
        if (e instanceof MergeExpression.Negate n) {
            Object v = evaluate(n.operand(), row, floating);
            return v == null ? null : floating ? (Object) (-(Double) v) : step(((BigDecimal) v).negate());
        }
        if (e instanceof MergeExpression.Arithmetic a) {
            Object l = evaluate(a.left(), row, floating);
            Object r = evaluate(a.right(), row, floating);
            if (l == null || r == null) {
                return null;
            }
            if (!floating && signedInteger) {
                refuseServerQuirk(a.op(), (BigDecimal) l, (BigDecimal) r);
            }
            return floating
                    ? (Object) arithmetic(a.op(), (Double) l, (Double) r)
                    : step(arithmetic(a.op(), (BigDecimal) l, (BigDecimal) r));
        }
        if (e instanceof MergeExpression.Function f) {
            return function(f, row, floating);
        }
        throw new MergeException("unresolved " + e + " in an expression over aggregates");
    }

    private Object function(MergeExpression.Function f, MergedRow row, boolean floating) {
        switch (f.name()) {
            case "COALESCE", "IFNULL" -> {
                for (MergeExpression argument : f.arguments()) {
                    Object v = evaluate(argument, row, floating);
                    if (v != null) {
                        return v;
                    }
                }
                return null;
            }
            case "ABS" -> {
                Object v = evaluate(f.arguments().get(0), row, floating);
                return v == null ? null : floating ? (Object) Math.abs((Double) v) : step(((BigDecimal) v).abs());
            }
            case "ROUND" -> {
                Object v = evaluate(f.arguments().get(0), row, floating);
                long digits = 0;
                if (f.arguments().size() > 1) {
                    Object d = evaluate(f.arguments().get(1), row, false);
                    if (d == null) {
                        return null;
                    }
                    digits = ((BigDecimal) d).setScale(0, RoundingMode.HALF_UP).longValue();
                }
                if (v == null) {
                    return null;
                }
                int scale = (int) Math.max(-QUOTIENT_SCALE, Math.min(QUOTIENT_SCALE, digits));
                if (floating) {
                    // MySQL's my_double_round: scale by 10^d, round half to even, scale back
                    double factor = Math.pow(10, Math.abs(scale));
                    double x = (Double) v;
                    return scale >= 0 ? Math.rint(x * factor) / factor : Math.rint(x / factor) * factor;
                }
                return ((BigDecimal) v).setScale(scale, RoundingMode.HALF_UP);
            }
            default -> throw MergeException.unsupported(f.name() + " over aggregates computed by the merge");
        }
    }

    /**
     * Refuses the two signed BIGINT steps where the server does not answer the exact result or 1690:
     * MariaDB computes {@code 0 - (-9223372036854775808)} as -9223372036854775808 (its overflow test
     * for a minus starts at a positive left operand) and a product of opposite signs whose magnitude
     * is 2^63 + 1 as 9223372036854775807 (checked on MariaDB 10.11, Item_func_minus/mul::int_op).
     * Which the backend does is not the router's to guess (MySQL's code differs): 1235.
     */
    private static void refuseServerQuirk(MergeExpression.Operator op, BigDecimal l, BigDecimal r) {
        boolean quirk = switch (op) {
            case MINUS -> l.signum() == 0 && r.compareTo(LONG_MIN) == 0;
            case TIMES -> l.signum() * r.signum() < 0 && l.multiply(r).abs().compareTo(TWO_POW_63_PLUS_ONE) == 0;
            default -> false;
        };
        if (quirk) {
            throw MergeException.unsupported("the signed BIGINT " + op.sql + " of " + l.toPlainString() + " and "
                    + r.toPlainString() + " across shards (servers answer it differently from each other and from"
                    + " arithmetic)");
        }
    }

    /** {@code value}, one step of a signed integer item, if it fits a BIGINT: else MySQL's 1690. */
    private BigDecimal step(BigDecimal value) {
        if (value == null || !signedInteger) {
            return value;
        }
        if (value.compareTo(LONG_MIN) < 0 || value.compareTo(LONG_MAX) > 0) {
            throw MergeException.outOfRange("BIGINT value is out of range in '" + value.toPlainString() + "'");
        }
        return value;
    }

    /**
     * Whether {@code e} can never be NULL, as MySQL flags the item NOT NULL: arithmetic of NOT NULL
     * operands (a division can be NULL, by zero), COALESCE with a NOT NULL argument, the NOT NULL
     * flag of a merged column ({@code COUNT}) as the shards sent it. The shards' column for the item
     * lost the flag to {@code IF(FALSE, item, NULL)}, which they run instead of the item.
     */
    static boolean notNull(MergeExpression e, java.util.function.Predicate<MergeSpec.Column> notNullColumn) {
        if (e instanceof MergeExpression.ColumnValue c) {
            return notNullColumn.test(c.column());
        }
        if (e instanceof MergeExpression.Constant c) {
            return c.value() != null;
        }
        if (e instanceof MergeExpression.Negate n) {
            return notNull(n.operand(), notNullColumn);
        }
        if (e instanceof MergeExpression.Arithmetic a) {
            return a.op() != MergeExpression.Operator.DIVIDE
                    && notNull(a.left(), notNullColumn)
                    && notNull(a.right(), notNullColumn);
        }
        if (e instanceof MergeExpression.Function f) {
            return switch (f.name()) {
                case "COALESCE", "IFNULL" -> f.arguments().stream().anyMatch(x -> notNull(x, notNullColumn));
                default -> f.arguments().stream().allMatch(x -> notNull(x, notNullColumn));
            };
        }
        return false;
    }

    private static Double arithmetic(MergeExpression.Operator op, double l, double r) {
        return switch (op) {
            case PLUS -> l + r;
            case MINUS -> l - r;
            case TIMES -> l * r;
            case DIVIDE -> r == 0 ? null : l / r;
        };
    }

    private static BigDecimal arithmetic(MergeExpression.Operator op, BigDecimal l, BigDecimal r) {
        return switch (op) {
            case PLUS -> l.add(r);
            case MINUS -> l.subtract(r);
            case TIMES -> l.multiply(r);
            // truncated far past any scale MySQL shows: the final rounding decides as MySQL's does
            case DIVIDE -> r.signum() == 0 ? null : l.divide(r, QUOTIENT_SCALE, RoundingMode.DOWN);
        };
    }

    private static Object number(Object v, boolean floating) {
        if (v == null) {
            return null;
        }
        if (floating) {
            if (v instanceof Number n) {
                return n.doubleValue();
            }
        } else if (v instanceof BigDecimal d) {
            return d;
        } else if (v instanceof Long || v instanceof Integer) {
            return BigDecimal.valueOf(((Number) v).longValue());
        } else if (v instanceof BigInteger i) {
            return new BigDecimal(i);
        } else if (v instanceof Double || v instanceof Float) {
            return new BigDecimal(v.toString());
        }
        throw MergeException.unsupported("an expression over aggregates of a value that is not a number ("
                + v.getClass().getSimpleName() + ") across shards");
    }
}
