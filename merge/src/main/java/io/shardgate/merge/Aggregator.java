package io.shardgate.merge;

import io.shardgate.protocol.type.MySqlType;
import io.shardgate.sharding.plan.MergeSpec.Function;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Combines one aggregate over the shards' partial results of one group: COUNT adds the counts, SUM
 * adds the sums ignoring NULLs, MIN and MAX keep the least or greatest non-NULL value (and the row
 * that holds it, whose cell is relayed unchanged), AVG divides the sum of the shards' SUMs by the
 * sum of their COUNTs as MySQL does: DECIMAL rounded half away from zero at the result's scale,
 * DOUBLE in floating point. COUNT/SUM/AVG(DISTINCT x) count, add or average the distinct non-NULL
 * values of x (each shard returns x beside its partial result, grouped by it), distinct as the
 * column's collation compares them.
 *
 * <p>A merge keeps one aggregator per group and shard and combines them in shard order
 * ({@link #absorb}), so the result does not depend on how the shards' rows interleave: the values
 * are those of adding the rows shard after shard, each shard's in its order, to the last bit of a
 * DOUBLE sum (the addends of a floating sum are kept for that; a shard sends one row per group
 * unless the merge also groups by a DISTINCT aggregate's argument).
 */
final class Aggregator {
    private static final Pattern LEADING_NUMBER =
            Pattern.compile("\\s*([+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)?");

    /** Decimals of a column without a fixed scale. */
    private static final int NOT_FIXED_DEC = 31;

    private final Function function;
    private final int column;
    private final int countColumn;
    private final ColumnOrder order;
    private final boolean floating;
    private final int scale;

    /** DISTINCT aggregates: the argument's ordering, and the keys of the values seen. */
    private final ColumnOrder argumentOrder;

    /** The distinct values by key, in the order first seen. */
    private final Map<Object, Object> seenValues;

    /** Floating SUM and AVG: the values added, in order, to replay onto another shard's sum. */
    private double[] addends;

    private int addendCount;

    private long count;
    private BigDecimal decimalSum;
    private double doubleSum;
    private boolean seen;
    private ShardRow best;

    /**
     * @param column shard column of the partial result (for AVG: the shard's SUM)
     * @param countColumn shard column of AVG's COUNT, or of a DISTINCT aggregate's argument; else -1
     * @param output the merged column's definition (AVG's type and scale)
     * @param order the ordering of {@code column} (MIN, MAX)
     * @param argumentOrder the ordering of a DISTINCT aggregate's argument column, else null
     */
    Aggregator(
            Function function,
            int column,
            int countColumn,
            ResultColumn output,
            ColumnOrder order,
            ColumnOrder argumentOrder) {
        this.function = function;
        this.column = column;
        this.countColumn = countColumn;
        this.order = order;
        this.argumentOrder = argumentOrder;
        this.seenValues = argumentOrder == null ? null : new LinkedHashMap<>();
        this.floating = output.type() == MySqlType.DOUBLE || output.type() == MySqlType.FLOAT;
        this.scale = output.decimals();
    }

    /**
     * Adds a shard row's partial result; returns the bytes the aggregator holds more than before.
     * A row it keeps (MIN's or MAX's best) is kept {@link ShardRow#detached}.
     */
    long add(ShardRow row) {
        switch (function) {
            case COUNT -> count += number(row.value(column)).longValueExact();
            case SUM -> {
                return addSum(row.value(column), true);
            }
            case AVG -> {
                Object c = row.value(countColumn);
                count += c == null ? 0 : number(c).longValueExact();
                return addSum(row.value(column), true);
            }
            case COUNT_DISTINCT, SUM_DISTINCT, AVG_DISTINCT -> {
                Object v = row.value(countColumn);
                return v == null ? 0 : addDistinct(argumentOrder.key(row), v);
            }
            case MIN, MAX -> {
                if (row.value(column) != null && better(row)) {
                    long before = best == null ? 0 : best.heldBytes();
                    best = row.detached();
                    return best.heldBytes() - before;
                }
            }
        }
        return 0;
    }

    /**
     * Adds the partials another shard's aggregator of the same group combined, as if that shard's
     * rows followed the ones this one has seen; {@code other} is not used after.
     */
    void absorb(Aggregator other) {
        switch (function) {
            case COUNT -> count += other.count;
            case SUM, AVG -> {
                count += other.count;
                if (floating) {
                    for (int i = 0; i < other.addendCount; i++) {
                        addSum(other.addends[i], false);
                    }
                } else if (other.seen) {
                    addSum(other.decimalSum, false);
                }
            }
            case COUNT_DISTINCT, SUM_DISTINCT, AVG_DISTINCT -> other.seenValues.forEach(this::addDistinct);
            case MIN, MAX -> {
                if (other.best != null && better(other.best)) {
                    best = other.best;
                }
            }
        }
    }

    private boolean better(ShardRow row) {
        if (best == null) {
            return true;
        }
        int cmp = order.compare(row, best);
        return function == Function.MIN ? cmp < 0 : cmp > 0;
    }

    private long addDistinct(Object key, Object v) {
        if (seenValues.putIfAbsent(key, v) != null) {
            return 0;
        }
        count++;
        if (function != Function.COUNT_DISTINCT) {
            if (!(v instanceof Number) && !(v instanceof byte[])) {
                throw MergeException.unsupported(function + " of a temporal value across shards");
            }
            addSum(v instanceof byte[] text ? leadingNumber(text) : v, false);
        }
        return 16 + ValueSize.of(key) + (key == v ? 0 : ValueSize.of(v));
    }

    /** Adds a non-NULL value to the sum; {@code keep} records a floating addend for {@link #absorb}. */
    private long addSum(Object v, boolean keep) {
        if (v == null) {
            return 0;
        }
        seen = true;
        if (floating) {
            double d = ((Number) v).doubleValue();
            doubleSum += d;
            if (!keep) {
                return 0;
            }
            long grown = 0;
            if (addends == null || addendCount == addends.length) {
                int before = addends == null ? 0 : addends.length;
                addends = addends == null ? new double[1] : Arrays.copyOf(addends, before * 2);
                grown = 8L * (addends.length - before);
            }
            addends[addendCount++] = d;
            return grown;
        }
        BigDecimal d = number(v);
        decimalSum = decimalSum == null ? d : decimalSum.add(d);
        return 0;
    }

    /** MIN and MAX relay the winning row's cell; the others are computed. */
    boolean computed() {
        return function != Function.MIN && function != Function.MAX;
    }

    /** The row holding MIN's or MAX's value, or null when every value was NULL. */
    ShardRow best() {
        return best;
    }

    /** The merged value, null for SQL NULL. */
    Object value() {
        return switch (function) {
            case COUNT -> count;
            case COUNT_DISTINCT -> count;
            case SUM, SUM_DISTINCT -> !seen ? null : floating ? (Object) doubleSum : scaled(decimalSum);
            case AVG, AVG_DISTINCT ->
                count == 0 || !seen
                        ? null
                        : floating
                                ? (Object) (doubleSum / count)
                                : decimalSum.divide(BigDecimal.valueOf(count), scale, RoundingMode.HALF_UP);
            case MIN, MAX -> best == null ? null : best.value(column);
        };
    }

    /**
     * A string's value in arithmetic, as MySQL converts it: its longest leading number (after
     * leading spaces), 0 when there is none.
     */
    private static double leadingNumber(byte[] text) {
        Matcher m = LEADING_NUMBER.matcher(new String(text, StandardCharsets.ISO_8859_1));
        return m.lookingAt() && m.group(1) != null ? Double.parseDouble(m.group(1)) : 0.0;
    }

    private BigDecimal scaled(BigDecimal sum) {
        return scale >= NOT_FIXED_DEC ? sum : sum.setScale(scale, RoundingMode.HALF_UP);
    }

    private static BigDecimal number(Object v) {
        if (v instanceof BigDecimal d) {
            return d;
        }
        if (v instanceof Long l) {
            return BigDecimal.valueOf(l);
        }
        if (v instanceof BigInteger i) {
            return new BigDecimal(i);
        }
        return new BigDecimal(v.toString());
    }
}
