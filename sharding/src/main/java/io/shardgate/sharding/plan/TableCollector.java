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
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;

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
    /** Whether subqueries over sharded tables may count as joins when tied on the key (SELECT only). */
    private boolean tieSubqueries;

    /** {@code resolve(name, nested)} turns a table name into a reference (alias set later). */
    TableCollector(BiFunction<SqlIdentifier, Boolean, TableRef> resolve) {
        this.resolve = resolve;
    }

    String unsupported() {
        return unsupported;
    }

    /**
     * From now on, a subquery over a single sharded table that is tied to the outer query on the
     * sharding key counts as a join of that table (see {@link #tie}); a SELECT's subqueries then
     * run on each shard with the outer query when the tables are in one binding group.
     */
    TableCollector tyingSubqueries() {
        tieSubqueries = true;
        return this;
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
            if (!(tieSubqueries && tie(s, null))) {
                select(s, true);
            }
        } else if (node instanceof SqlNodeList list) {
            list.forEach(this::expressions);
        } else if (node instanceof SqlCall call) {
            if (tieSubqueries
                    && (call.getKind() == SqlKind.IN || call.getKind() == SqlKind.NOT_IN)
                    && call.operand(1) instanceof SqlSelect sub
                    && tie(sub, call.operand(0))) {
                expressions(call.operand(0));
                return;
            }
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

    /**
     * Takes a subquery over one sharded table as a join on the sharding key when each of its rows
     * can only meet outer rows of the same key, so every shard answers it for its own rows:
     * {@code outerKey IN (SELECT key FROM t ...)} (grouped, if at all, by the key; no LIMIT), or a
     * subquery whose WHERE has {@code t.key = outer.key}. The tying equality joins the join
     * conditions, where {@link Placement} checks that both sides are keys of one binding group.
     * Its alias must differ from the outer query's. Deeper subqueries stay nested.
     */
    private boolean tie(SqlSelect sub, SqlNode inLeft) {
        SqlNode from = sub.getFrom();
        SqlIdentifier id;
        String alias;
        if (from instanceof SqlIdentifier i) {
            id = i;
            alias = i.names.get(i.names.size() - 1);
        } else if (from != null
                && from.getKind() == SqlKind.AS
                && ((SqlBasicCall) from).operand(0) instanceof SqlIdentifier i) {
            id = i;
            alias = ((SqlIdentifier) ((SqlBasicCall) from).operand(1)).getSimple();
        } else {
            return false;
        }
        if (refs.stream().anyMatch(r -> r.alias().equalsIgnoreCase(alias))) {
            return false;
        }
        TableRef ref = resolve.apply(id, true);
        if (ref == null || !ref.rule().sharded()) {
            return false;
        }
        String key = ref.rule().keyed().column();
        SqlIdentifier innerKey = new SqlIdentifier(List.of(alias, key), SqlParserPos.ZERO);
        SqlNode tying = inLeft != null ? inTie(sub, inLeft, alias, key) : correlation(sub, alias, key);
        if (tying == null) {
            return false;
        }
        refs.add(new TableRef(ref.rule(), alias, false));
        joinConditions.add(SqlStdOperatorTable.EQUALS.createCall(SqlParserPos.ZERO, innerKey, tying));
        expressions(sub.getSelectList());
        expressions(sub.getWhere());
        expressions(sub.getGroup());
        expressions(sub.getHaving());
        expressions(sub.getOrderList());
        return true;
    }

    /** The outer key of {@code outerKey IN (SELECT key ...)}, qualified; null when not such a subquery. */
    private SqlNode inTie(SqlSelect sub, SqlNode inLeft, String alias, String key) {
        if (sub.getSelectList().size() != 1
                || !isColumn(sub.getSelectList().get(0), alias, key)
                || sub.getFetch() != null
                || sub.getOffset() != null) {
            return null;
        }
        boolean grouped = sub.getGroup() != null && sub.getGroup().size() > 0;
        if (grouped ? sub.getGroup().stream().noneMatch(g -> isColumn(g, alias, key)) : sub.getHaving() != null) {
            return null; // groups spanning keys, or one group of everything, differ per shard
        }
        if (inLeft instanceof SqlIdentifier bare && bare.names.size() == 1) {
            // a bare outer column: the key of exactly one outer sharded table
            List<TableRef> owners = refs.stream()
                    .filter(r -> !r.nested() && r.rule().sharded())
                    .filter(r -> r.rule().keyed().column().equalsIgnoreCase(bare.getSimple()))
                    .toList();
            return owners.size() == 1
                    ? new SqlIdentifier(List.of(owners.get(0).alias(), bare.getSimple()), SqlParserPos.ZERO)
                    : null;
        }
        return inLeft;
    }

    /** The outer column of a {@code alias.key = outer.column} conjunct of the subquery's WHERE, or null. */
    private SqlNode correlation(SqlSelect sub, String alias, String key) {
        for (SqlNode c : Placement.conjuncts(sub.getWhere())) {
            if (c.getKind() != SqlKind.EQUALS) {
                continue;
            }
            SqlNode a = ((SqlBasicCall) c).operand(0);
            SqlNode b = ((SqlBasicCall) c).operand(1);
            if (isColumn(a, alias, key) && isOuter(b)) {
                return b;
            }
            if (isColumn(b, alias, key) && isOuter(a)) {
                return a;
            }
        }
        return null;
    }

    /** {@code alias.key}, or a bare {@code key} (inside the subquery it names the subquery's table). */
    private static boolean isColumn(SqlNode node, String alias, String key) {
        if (!(node instanceof SqlIdentifier id) || id.isStar()) {
            return false;
        }
        String column = id.names.get(id.names.size() - 1);
        return column.equalsIgnoreCase(key)
                && (id.names.size() == 1
                        || (id.names.size() == 2 && id.names.get(0).equalsIgnoreCase(alias)));
    }

    /** A column qualified with the alias of a table of the outer query. */
    private boolean isOuter(SqlNode node) {
        return node instanceof SqlIdentifier id
                && id.names.size() == 2
                && refs.stream().anyMatch(r -> !r.nested() && r.alias().equalsIgnoreCase(id.names.get(0)));
    }
}
