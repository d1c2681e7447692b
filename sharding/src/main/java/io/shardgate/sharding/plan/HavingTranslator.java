package io.shardgate.sharding.plan;

import io.shardgate.sharding.plan.MergeSpec.Aggregate;
import io.shardgate.sharding.plan.MergeSpec.Column;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;

/**
 * Turns the HAVING clause of a SELECT whose groups span shards into a {@link HavingCondition} over
 * the merged columns: selected items (by expression or alias), group keys, aggregates (added as
 * hidden columns, merged like the selected ones, when not selected) and literal slots. Anything
 * else is refused with the reason. One instance per statement, used by {@link MergePlanner}.
 */
final class HavingTranslator {
    private final MergePlanner planner;
    private final SqlNodeList items;
    private final List<SqlNode> group;
    private final List<Column> groupColumns;
    private final List<Aggregate> aggregates;

    HavingTranslator(
            MergePlanner planner,
            SqlNodeList items,
            List<SqlNode> group,
            List<Column> groupColumns,
            List<Aggregate> aggregates) {
        this.planner = planner;
        this.items = items;
        this.group = group;
        this.groupColumns = groupColumns;
        this.aggregates = aggregates;
    }

    HavingCondition condition(SqlNode n) {
        SqlKind kind = n.getKind();
        if (kind == SqlKind.AND || kind == SqlKind.OR) {
            List<HavingCondition> operands =
                    ((SqlCall) n).getOperandList().stream().map(this::condition).toList();
            return kind == SqlKind.AND ? new HavingCondition.And(operands) : new HavingCondition.Or(operands);
        }
        if (kind == SqlKind.NOT) {
            return new HavingCondition.Not(condition(((SqlCall) n).operand(0)));
        }
        if (kind == SqlKind.IS_NULL || kind == SqlKind.IS_NOT_NULL) {
            return new HavingCondition.IsNull(operand(((SqlCall) n).operand(0)), kind == SqlKind.IS_NOT_NULL);
        }
        if (n instanceof SqlCall call
                && call.getOperator() instanceof org.apache.calcite.sql.fun.SqlBetweenOperator between) {
            MergeExpression.Leaf value = operand(call.operand(0));
            HavingCondition range = new HavingCondition.And(List.of(
                    new HavingCondition.Compare(
                            HavingCondition.Comparison.GREATER_OR_EQUAL, value, operand(call.operand(1))),
                    new HavingCondition.Compare(
                            HavingCondition.Comparison.LESS_OR_EQUAL, value, operand(call.operand(2)))));
            return between.isNegated() ? new HavingCondition.Not(range) : range;
        }
        HavingCondition.Comparison op = switch (kind) {
            case EQUALS -> HavingCondition.Comparison.EQUALS;
            case NOT_EQUALS -> HavingCondition.Comparison.NOT_EQUALS;
            case LESS_THAN -> HavingCondition.Comparison.LESS;
            case LESS_THAN_OR_EQUAL -> HavingCondition.Comparison.LESS_OR_EQUAL;
            case GREATER_THAN -> HavingCondition.Comparison.GREATER;
            case GREATER_THAN_OR_EQUAL -> HavingCondition.Comparison.GREATER_OR_EQUAL;
            default -> throw new MergePlanner.Unsupported("HAVING with " + planner.source(n) + " on several shards");
        };
        SqlCall call = (SqlCall) n;
        return new HavingCondition.Compare(op, operand(call.operand(0)), operand(call.operand(1)));
    }

    /** A selected column, a grouped key, an aggregate (hidden when not selected) or a literal. */
    private MergeExpression.Leaf operand(SqlNode e) {
        if (e instanceof SqlDynamicParam p) {
            if (planner.source(e).contains("(...)")) {
                throw new MergePlanner.Unsupported("HAVING with a list on several shards");
            }
            return new MergeExpression.Slot(p.getIndex());
        }
        for (int i = 0; i < items.size(); i++) {
            SqlNode item = items.get(i);
            boolean byAlias = item.getKind() == SqlKind.AS
                    && e instanceof SqlIdentifier id
                    && id.isSimple()
                    && ((SqlIdentifier) ((SqlBasicCall) item).operand(1))
                            .getSimple()
                            .equalsIgnoreCase(id.getSimple());
            if (byAlias || MergePlanner.unalias(item).equalsDeep(e, org.apache.calcite.util.Litmus.IGNORE)) {
                return new MergeExpression.ColumnValue(new Column(i, false));
            }
        }
        for (int i = 0; i < group.size(); i++) {
            if (group.get(i).equalsDeep(e, org.apache.calcite.util.Litmus.IGNORE)) {
                return new MergeExpression.ColumnValue(groupColumns.get(i));
            }
        }
        SqlCall agg = MergePlanner.aggregate(e);
        if (agg == null) {
            throw new MergePlanner.Unsupported("HAVING refers to " + planner.source(e)
                    + ", which is neither selected, grouped nor an aggregate, on several shards");
        }
        return new MergeExpression.ColumnValue(hiddenAggregate(agg));
    }

    /** An aggregate only HAVING uses: computed by the shards as hidden columns, merged like the others. */
    private Column hiddenAggregate(SqlCall call) {
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        if (call.getFunctionQuantifier() != null && !name.equals("MIN") && !name.equals("MAX")) {
            throw new MergePlanner.Unsupported(
                    "HAVING with " + name + "(DISTINCT) that is not selected, on several shards");
        }
        String src = planner.source(call);
        if (!name.equals("AVG")) {
            Column at = planner.hiddenColumn(src);
            aggregates.add(new Aggregate(MergeSpec.Function.valueOf(name), at, null));
            return at;
        }
        String args = src.substring(src.indexOf('('));
        Column sum = planner.hiddenColumn("SUM" + args);
        aggregates.add(new Aggregate(MergeSpec.Function.AVG, sum, planner.hiddenColumn("COUNT" + args)));
        return sum;
    }

    /**
     * Whether a HAVING condition reads only group keys: then each shard evaluates it on its own
     * groups as well as the merge could (a group's keys are the same on every shard).
     */
    static boolean onlyKeys(HavingCondition c, List<Column> keys) {
        if (c instanceof HavingCondition.Compare cmp) {
            return onlyKeys(cmp.left(), keys) && onlyKeys(cmp.right(), keys);
        }
        if (c instanceof HavingCondition.IsNull n) {
            return onlyKeys(n.operand(), keys);
        }
        if (c instanceof HavingCondition.Not n) {
            return onlyKeys(n.operand(), keys);
        }
        List<HavingCondition> operands =
                c instanceof HavingCondition.And a ? a.operands() : ((HavingCondition.Or) c).operands();
        return operands.stream().allMatch(o -> onlyKeys(o, keys));
    }

    private static boolean onlyKeys(MergeExpression.Leaf o, List<Column> keys) {
        return !(o instanceof MergeExpression.ColumnValue v) || keys.contains(v.column());
    }
}
