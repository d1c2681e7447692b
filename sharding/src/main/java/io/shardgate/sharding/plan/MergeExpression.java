package io.shardgate.sharding.plan;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A select item over aggregates that the merge computes from the merged aggregates when groups
 * span shards ({@code SUM(k)/COUNT(*)}, {@code MAX(k)-MIN(k)}, {@code ROUND(AVG(k),2)}, {@code
 * COUNT(*)+1}): each shard types the item, for its column definition only, without evaluating
 * it ({@code IF(FALSE, item, NULL)}); the merge computes the value. Leaves are merged columns (the aggregates, hidden when not selected) and
 * the statement's literals; a division (AVG counts as SUM / COUNT) appears only where its exact
 * quotient gives MySQL's answer: at the top, or directly under a top-level ROUND.
 */
public sealed interface MergeExpression {

    /**
     * A leaf: a merged column, a slot or its constant. HAVING conditions compare these too
     * ({@link HavingCondition}), so both trees share one set of leaves.
     */
    sealed interface Leaf extends MergeExpression permits ColumnValue, Slot, Constant {
        @Override
        default Leaf resolve(Values values) {
            return this instanceof Slot s ? new Constant(values.scalar(s.slot())) : this;
        }
    }

    /** A merged column's value (an aggregate combined over the shards, or a group key). */
    record ColumnValue(MergeSpec.Column column) implements Leaf {
        @Override
        public String toString() {
            return column.toString();
        }
    }

    /** A literal or parameter of the statement, by slot; {@link Constant} once resolved for one execution. */
    record Slot(int slot) implements Leaf {
        @Override
        public String toString() {
            return "?" + (slot + 1);
        }
    }

    /** A slot's value in one execution (Long, BigDecimal, Double, String, byte[] or null). */
    record Constant(Object value) implements Leaf {
        @Override
        public String toString() {
            return String.valueOf(value);
        }
    }

    enum Operator {
        PLUS("+"),
        MINUS("-"),
        TIMES("*"),
        DIVIDE("/");

        public final String sql;

        Operator(String sql) {
            this.sql = sql;
        }
    }

    record Arithmetic(Operator op, MergeExpression left, MergeExpression right) implements MergeExpression {
        @Override
        public String toString() {
            return "(" + left + " " + op.sql + " " + right + ")";
        }
    }

    /** Unary minus. */
    record Negate(MergeExpression operand) implements MergeExpression {
        @Override
        public String toString() {
            return "-" + operand;
        }
    }

    /**
     * A function of the merged values: ROUND(x[, d]) (decimals half away from zero, floating
     * point half to even, as MySQL), ABS(x), COALESCE/IFNULL (the first non-NULL argument).
     */
    record Function(String name, List<MergeExpression> arguments) implements MergeExpression {
        public Function {
            arguments = List.copyOf(arguments);
        }

        @Override
        public String toString() {
            return name + arguments.stream().map(Object::toString).collect(Collectors.joining(", ", "(", ")"));
        }
    }

    /** This expression with every slot replaced by its value in {@code values} (leaves: {@link Leaf}). */
    default MergeExpression resolve(Values values) {
        if (this instanceof Arithmetic a) {
            return new Arithmetic(a.op(), a.left().resolve(values), a.right().resolve(values));
        }
        if (this instanceof Negate n) {
            return new Negate(n.operand().resolve(values));
        }
        if (this instanceof Function f) {
            return new Function(
                    f.name(), f.arguments().stream().map(x -> x.resolve(values)).toList());
        }
        return this;
    }

    /** Whether the expression has slots (to resolve per execution). */
    default boolean hasSlots() {
        if (this instanceof Slot) {
            return true;
        }
        if (this instanceof Arithmetic a) {
            return a.left().hasSlots() || a.right().hasSlots();
        }
        if (this instanceof Negate n) {
            return n.operand().hasSlots();
        }
        return this instanceof Function f && f.arguments().stream().anyMatch(MergeExpression::hasSlots);
    }
}
