package io.shardgate.sharding.plan;

import io.shardgate.sharding.rule.Role;
import java.util.List;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;

/**
 * A SELECT whose only FROM item is a derived table over sharded tables ({@code SELECT ... FROM
 * (SELECT ...) t}), pushed down to the shards when that is provably correct:
 *
 * <ul>
 *   <li>the inner query's result is the union of what each shard computes for it (it neither
 *       aggregates, DISTINCTs nor LIMITs, or it groups by the sharding key, so no group spans
 *       shards): the outer query then reads a sharded relation, and runs on each shard of the
 *       inner query's route with the usual merge ({@link MergePlanner}, nothing taken for the key);
 *   <li>or the inner query is narrowed to one shard by an equality on the key: the whole statement
 *       runs there, and an execution whose value picks no single shard is refused.
 * </ul>
 *
 * Anything else (an inner LIMIT, ORDER BY, aggregates over the whole table, a derived table beside
 * other tables) returns null and is refused by the caller with its reason. One use per statement.
 */
final class DerivedTablePlanner {
    private final StatementContext context;

    DerivedTablePlanner(StatementContext context) {
        this.context = context;
    }

    /** The inner SELECT when {@code outer}'s only FROM item is a derived table, else null. */
    static SqlSelect derived(SqlSelect outer) {
        SqlNode from = outer.getFrom();
        if (from != null
                && from.getKind() == SqlKind.AS
                && ((SqlBasicCall) from).operand(0) instanceof SqlSelect inner) {
            return inner;
        }
        return null;
    }

    /** The plan, or null when the statement is not one this planner can push down. */
    Planned plan(SqlSelect outer, SqlSelect inner, SqlOrderBy orderBy, Role role) {
        TableCollector outside = new TableCollector(context.resolve());
        outside.expressions(outer.getSelectList());
        outside.expressions(outer.getWhere());
        outside.expressions(outer.getHaving());
        if (!outside.refs.isEmpty() || outside.unsupported() != null) {
            return null; // subqueries beside the derived table
        }
        TableCollector tables = new TableCollector(context.resolve()).tyingSubqueries();
        tables.select(inner, false);
        if (tables.unsupported() != null || tables.refs.stream().anyMatch(TableRef::nested)) {
            return null;
        }
        Placement placement = new Placement(tables.refs, context.schema());
        Route route = placement.route(
                tables.joinConditions, Placement.conjuncts(inner.getWhere()), false, context.defaultHostgroup());
        boolean sharded =
                route instanceof Route.ByKey || route instanceof Route.ByRange || route instanceof Route.Scatter;
        if (!sharded) {
            return null;
        }
        if (!unionOfShards(inner, placement)) {
            if (!(route instanceof Route.ByKey k) || isList(k.slot())) {
                return null;
            }
            String name = k.table().name();
            route = Route.ByKey.oneShardOnly(
                    k.table(),
                    k.slot(),
                    "derived table over " + name + " whose result spans shards: its "
                            + k.table().keyed().column() + " value maps to no single shard");
        }
        // the outer query reads the derived table's columns: none of them is taken for the sharding key
        return new MergePlanner(context.text(), new Placement(List.of(), context.schema()))
                .plan(outer, orderBy, role, route);
    }

    /** Whether the inner query's result is the disjoint union of its per-shard results. */
    static boolean unionOfShards(SqlSelect inner, Placement placement) {
        if (inner.isDistinct()) {
            return false;
        }
        boolean aggregates = inner.getSelectList().stream().anyMatch(MergePlanner::hasAggregate);
        if (inner.getGroup() == null || inner.getGroup().isEmpty()) {
            return !aggregates && inner.getHaving() == null;
        }
        return inner.getGroup().stream().anyMatch(g -> {
            Placement.ColumnRef c = placement.column(g);
            return c != null
                    && c.table().rule().sharded()
                    && c.table().rule().keyed().column().equalsIgnoreCase(c.column());
        });
    }

    private boolean isList(int slot) {
        SqlTemplate t = new SqlTemplate(context.text());
        for (int at = context.text().indexOf("(...)");
                at >= 0;
                at = context.text().indexOf("(...)", at + 1)) {
            if (t.slotsBefore(at) == slot) {
                return true;
            }
        }
        return false;
    }
}
