package io.shardgate.sharding.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;

/**
 * Finds every table a parsed statement reads, top-level FROM items apart from those in subqueries,
 * and the ON conditions of its joins. A FROM item it does not understand (a derived table, VALUES,
 * a table function) is reported as {@link #unsupported()}.
 */
final class TableCollector {
    private final BiFunction<SqlIdentifier, Boolean, TableRef> resolve;
    final List<TableRef> refs = new ArrayList<>();
    final List<SqlNode> joinConditions = new ArrayList<>();
    private String unsupported;

    /** {@code resolve(name, nested)} turns a table name into a reference (alias set later). */
    TableCollector(BiFunction<SqlIdentifier, Boolean, TableRef> resolve) {
        this.resolve = resolve;
    }

    String unsupported() {
        return unsupported;
    }

    void select(SqlSelect select, boolean nested) {
        if (select.getFrom() != null) {
            from(select.getFrom(), nested);
        }
        expressions(select.getSelectList());
        expressions(select.getWhere());
        expressions(select.getGroup());
        expressions(select.getHaving());
        expressions(select.getOrderList());
    }

    void from(SqlNode node, boolean nested) {
        if (node instanceof SqlJoin join) {
            from(join.getLeft(), nested);
            from(join.getRight(), nested);
            if (join.getCondition() != null) {
                if (!nested) {
                    joinConditions.addAll(Placement.conjuncts(join.getCondition()));
                }
                expressions(join.getCondition());
            }
        } else if (node instanceof SqlIdentifier id) {
            add(id, id.names.get(id.names.size() - 1), nested);
        } else if (node.getKind() == SqlKind.AS && ((SqlBasicCall) node).operand(0) instanceof SqlIdentifier id) {
            add(id, ((SqlIdentifier) ((SqlBasicCall) node).operand(1)).getSimple(), nested);
        } else {
            unsupported = "derived table or table expression in FROM";
            expressions(node);
        }
    }

    private void add(SqlIdentifier id, String alias, boolean nested) {
        TableRef ref = resolve.apply(id, nested);
        if (ref != null) {
            refs.add(new TableRef(ref.rule(), alias, nested));
        }
    }

    /** Looks for subqueries anywhere inside an expression. */
    void expressions(SqlNode node) {
        if (node == null) {
            return;
        }
        if (node instanceof SqlSelect s) {
            select(s, true);
        } else if (node instanceof SqlNodeList list) {
            list.forEach(this::expressions);
        } else if (node instanceof SqlCall call) {
            if (call.getKind() == SqlKind.ORDER_BY
                    || call.getKind() == SqlKind.WITH
                    || call.getKind() == SqlKind.UNION) {
                unsupported = "subquery with " + call.getKind().sql;
            }
            for (SqlNode operand : call.getOperandList()) {
                expressions(operand);
            }
        }
    }
}
