package io.shardgate.sharding.plan;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A HAVING clause the merge evaluates on the merged groups, when groups span shards and no shard
 * can evaluate it on its partial aggregates: comparisons, IS [NOT] NULL, AND, OR and NOT over
 * merged result columns (selected, or hidden aggregates and keys) and the statement's literals.
 * SQL's three-valued logic applies: a group is kept only when the condition is TRUE. The values
 * compared are {@link MergeExpression.Leaf}s.
 */
public sealed interface HavingCondition {

    enum Comparison {
        EQUALS("="),
        NOT_EQUALS("<>"),
        LESS("<"),
        LESS_OR_EQUAL("<="),
        GREATER(">"),
        GREATER_OR_EQUAL(">=");

        final String sql;

        Comparison(String sql) {
            this.sql = sql;
        }

        /** Whether a comparison result (negative, zero, positive) satisfies this operator. */
        public boolean holds(int compared) {
            return switch (this) {
                case EQUALS -> compared == 0;
                case NOT_EQUALS -> compared != 0;
                case LESS -> compared < 0;
                case LESS_OR_EQUAL -> compared <= 0;
                case GREATER -> compared > 0;
                case GREATER_OR_EQUAL -> compared >= 0;
            };
        }
    }

    record Compare(Comparison op, MergeExpression.Leaf left, MergeExpression.Leaf right) implements HavingCondition {
        @Override
        public String toString() {
            return left + " " + op.sql + " " + right;
        }
    }

    record IsNull(MergeExpression.Leaf operand, boolean negated) implements HavingCondition {
        @Override
        public String toString() {
            return operand + (negated ? " IS NOT NULL" : " IS NULL");
        }
    }

    record And(List<HavingCondition> operands) implements HavingCondition {
        @Override
        public String toString() {
            return operands.stream().map(o -> "(" + o + ")").collect(Collectors.joining(" AND "));
        }
    }

    record Or(List<HavingCondition> operands) implements HavingCondition {
        @Override
        public String toString() {
            return operands.stream().map(o -> "(" + o + ")").collect(Collectors.joining(" OR "));
        }
    }

    record Not(HavingCondition operand) implements HavingCondition {
        @Override
        public String toString() {
            return "NOT (" + operand + ")";
        }
    }

    /** This condition with every slot replaced by its value in {@code values}. */
    default HavingCondition resolve(Values values) {
        if (this instanceof Compare c) {
            return new Compare(c.op(), c.left().resolve(values), c.right().resolve(values));
        }
        if (this instanceof IsNull n) {
            return new IsNull(n.operand().resolve(values), n.negated());
        }
        if (this instanceof And a) {
            return new And(a.operands().stream().map(o -> o.resolve(values)).toList());
        }
        if (this instanceof Or o) {
            return new Or(o.operands().stream().map(x -> x.resolve(values)).toList());
        }
        return new Not(((Not) this).operand().resolve(values));
    }
}
