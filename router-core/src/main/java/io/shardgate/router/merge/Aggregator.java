package io.shardgate.router.merge;

import io.shardgate.protocol.type.MySqlType;
import io.shardgate.sharding.plan.MergeSpec.Function;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Combines one aggregate over the shards' partial results of one group: COUNT adds the counts, SUM
 * adds the sums ignoring NULLs, MIN and MAX keep the least or greatest non-NULL value (and the row
 * that holds it, whose cell is relayed unchanged), AVG divides the sum of the shards' SUMs by the
 * sum of their COUNTs as MySQL does: DECIMAL rounded half away from zero at the result's scale,
 * DOUBLE in floating point.
 */
final class Aggregator {
    /** Decimals of a column without a fixed scale. */
    private static final int NOT_FIXED_DEC = 31;

    private final Function function;
    private final int column;
    private final int countColumn;
    private final ColumnOrder order;
    private final boolean floating;
    private final int scale;

    private long count;
    private BigDecimal decimalSum;
    private double doubleSum;
    private boolean seen;
    private ShardRow best;

    /**
     * @param column shard column of the partial result (for AVG: the shard's SUM)
     * @param countColumn shard column of AVG's COUNT, else -1
     * @param input the shard's column definition at {@code column}
     * @param output the merged column's definition (AVG's type and scale)
     */
    Aggregator(Function function, int column, int countColumn, ResultColumn input, ResultColumn output) {
        this.function = function;
        this.column = column;
        this.countColumn = countColumn;
        this.order = ColumnOrder.of(input);
        this.floating = output.type() == MySqlType.DOUBLE || output.type() == MySqlType.FLOAT;
        this.scale = output.decimals();
    }

    void add(ShardRow row) {
        switch (function) {
            case COUNT -> count += number(row.value(column)).longValueExact();
            case SUM -> addSum(row.value(column));
            case AVG -> {
                addSum(row.value(column));
                Object c = row.value(countColumn);
                count += c == null ? 0 : number(c).longValueExact();
            }
            case MIN, MAX -> {
                Object v = row.value(column);
                if (v != null) {
                    int cmp = best == null ? 0 : order.compare(v, best.value(column));
                    if (best == null || (function == Function.MIN ? cmp < 0 : cmp > 0)) {
                        best = row;
                    }
                }
            }
        }
    }

    private void addSum(Object v) {
        if (v == null) {
            return;
        }
        seen = true;
        if (floating) {
            doubleSum += ((Number) v).doubleValue();
        } else {
            BigDecimal d = number(v);
            decimalSum = decimalSum == null ? d : decimalSum.add(d);
        }
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
            case SUM -> !seen ? null : floating ? (Object) doubleSum : scaled(decimalSum);
            case AVG ->
                count == 0 || !seen
                        ? null
                        : floating
                                ? (Object) (doubleSum / count)
                                : decimalSum.divide(BigDecimal.valueOf(count), scale, RoundingMode.HALF_UP);
            case MIN, MAX -> best == null ? null : best.value(column);
        };
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
