package io.shardgate.sharding.plan;

import io.shardgate.sharding.plan.MergeSpec.Aggregate;
import io.shardgate.sharding.plan.MergeSpec.Column;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;

/**
 * Turns a select item over aggregates of a query whose groups span shards into a {@link
 * MergeExpression}: each aggregate becomes a hidden column merged like any other (AVG as SUM and
 * COUNT, divided by the merge), literals become slots, group keys their merged column. The
 * arithmetic the merge repeats is MySQL's only where it can be reproduced exactly: +, -, *, unary
 * minus, ABS, COALESCE/IFNULL anywhere, ROUND at the top, and one division (or AVG) at the top or
 * directly under that ROUND (MySQL keeps a quotient to 9-digit words internally and rounds it only
 * when it is shown, so a quotient used in further arithmetic is refused). One instance per
 * statement, used by {@link MergePlanner}.
 */
final class AggregateExpressionTranslator {
    private static final List<String> FUNCTIONS = List.of("ROUND", "ABS", "COALESCE", "IFNULL");

    private final MergePlanner planner;
    private final List<SqlNode> group;
    private final List<Column> groupColumns;
    private final List<Aggregate> aggregates;

    AggregateExpressionTranslator(
            MergePlanner planner, List<SqlNode> group, List<Column> groupColumns, List<Aggregate> aggregates) {
        this.planner = planner;
        this.group = group;
        this.groupColumns = groupColumns;
        this.aggregates = aggregates;
    }

    /** The merge's form of a select item that contains aggregates; refuses what it cannot reproduce. */
    MergeExpression translate(SqlNode item) {
        SqlNode e = MergePlanner.unalias(item);
        if (e instanceof SqlCall call && name(call).equals("ROUND")) {
            List<MergeExpression> args = new ArrayList<>();
            args.add(expression(call.operand(0), true, item));
            for (int i = 1; i < call.operandCount(); i++) {
                args.add(expression(call.operand(i), false, item));
            }
            return new MergeExpression.Function("ROUND", args);
        }
        return expression(e, true, item);
    }

    private MergeExpression expression(SqlNode e, boolean divisionAllowed, SqlNode item) {
        for (int i = 0; i < group.size(); i++) {
            if (group.get(i).equalsDeep(e, org.apache.calcite.util.Litmus.IGNORE)) {
                return new MergeExpression.ColumnValue(groupColumns.get(i));
            }
        }
        if (e instanceof SqlDynamicParam p) {
            if (planner.source(e).contains("(...)")) {
                throw refuse(item, "a list");
            }
            return new MergeExpression.Slot(p.getIndex());
        }
        if (e instanceof SqlLiteral literal && literal.getValue() == null) {
            return new MergeExpression.Constant(null);
        }
        if (!(e instanceof SqlCall call) || call.getOperator() == null) {
            throw refuse(item, planner.source(e) + ", which is neither an aggregate, a group key nor a number");
        }
        SqlCall aggregate = MergePlanner.aggregate(e);
        if (aggregate != null) {
            return aggregate(aggregate, divisionAllowed, item);
        }
        switch (call.getKind()) {
            case PLUS, MINUS, TIMES -> {
                MergeExpression.Operator op = call.getKind() == SqlKind.PLUS
                        ? MergeExpression.Operator.PLUS
                        : call.getKind() == SqlKind.MINUS
                                ? MergeExpression.Operator.MINUS
                                : MergeExpression.Operator.TIMES;
                return new MergeExpression.Arithmetic(
                        op, expression(call.operand(0), false, item), expression(call.operand(1), false, item));
            }
            case DIVIDE -> {
                if (!divisionAllowed) {
                    throw refuse(item, "a division whose quotient is used in further arithmetic");
                }
                return new MergeExpression.Arithmetic(
                        MergeExpression.Operator.DIVIDE,
                        expression(call.operand(0), false, item),
                        expression(call.operand(1), false, item));
            }
            case MINUS_PREFIX -> {
                return new MergeExpression.Negate(expression(call.operand(0), false, item));
            }
            default -> {}
        }
        String name = name(call);
        if (name.equals("ABS") && call.operandCount() == 1 || name.equals("COALESCE") || name.equals("IFNULL")) {
            List<MergeExpression> args = new ArrayList<>();
            for (SqlNode operand : call.getOperandList()) {
                args.add(expression(operand, false, item));
            }
            return new MergeExpression.Function(name, args);
        }
        throw refuse(
                item,
                FUNCTIONS.contains(name)
                        ? name + " inside arithmetic"
                        : name + "() (the merge computes only + - * /, ROUND, ABS, COALESCE and IFNULL)");
    }

    /** An aggregate inside the expression: merged as a hidden column (AVG: SUM / COUNT). */
    private MergeExpression aggregate(SqlCall call, boolean divisionAllowed, SqlNode item) {
        String name = name(call);
        if (call.getFunctionQuantifier() != null && !name.equals("MIN") && !name.equals("MAX")) {
            throw refuse(item, name + "(DISTINCT)");
        }
        String src = planner.source(call);
        if (src.contains("?") || src.contains("(...)")) {
            throw refuse(item, "an aggregate of an expression with literals");
        }
        if (!name.equals("AVG")) {
            Column at = planner.hiddenColumn(src);
            aggregates.add(new Aggregate(MergeSpec.Function.valueOf(name), at, null));
            return new MergeExpression.ColumnValue(at);
        }
        if (!divisionAllowed) {
            throw refuse(
                    item, "AVG used in further arithmetic (MySQL keeps its quotient to more digits than it shows)");
        }
        String args = src.substring(src.indexOf('('));
        Column sum = planner.hiddenColumn("SUM" + args);
        aggregates.add(new Aggregate(MergeSpec.Function.SUM, sum, null));
        Column count = planner.hiddenColumn("COUNT" + args);
        aggregates.add(new Aggregate(MergeSpec.Function.COUNT, count, null));
        return new MergeExpression.Arithmetic(
                MergeExpression.Operator.DIVIDE,
                new MergeExpression.ColumnValue(sum),
                new MergeExpression.ColumnValue(count));
    }

    private static String name(SqlCall call) {
        return call.getOperator().getName().toUpperCase(Locale.ROOT);
    }

    private MergePlanner.Unsupported refuse(SqlNode item, String what) {
        return new MergePlanner.Unsupported("select item " + planner.source(MergePlanner.unalias(item)) + " computes "
                + what + " over aggregates on several shards");
    }
}
