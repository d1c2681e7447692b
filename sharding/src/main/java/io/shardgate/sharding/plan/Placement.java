package io.shardgate.sharding.plan;

import io.shardgate.sharding.rule.BroadcastStrategy;
import io.shardgate.sharding.rule.RangeStrategy;
import io.shardgate.sharding.rule.SchemaRule;
import io.shardgate.sharding.rule.SingleStrategy;
import io.shardgate.sharding.rule.TableRule;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.fun.SqlBetweenOperator;

/**
 * Decides where the tables of one statement can run together, and how its WHERE clause narrows a
 * sharded table to hostgroups. Co-location rules: tables on one hostgroup join there; broadcast
 * tables join anything they are copied beside; sharded tables join only within one binding group
 * and on their sharding keys; anything else is refused with the reason.
 */
final class Placement {
    /** A column named in a predicate: the table it belongs to and its name. */
    record ColumnRef(TableRef table, String column) {}

    private final List<TableRef> refs;
    private final SchemaRule schema;

    Placement(List<TableRef> refs, SchemaRule schema) {
        this.refs = refs;
        this.schema = schema;
    }

    /**
     * The route for a statement over {@code refs} with the given join equalities and WHERE
     * conjuncts; {@code write} for UPDATE/DELETE (all copies of a broadcast table).
     */
    Route route(List<SqlNode> joinConditions, List<SqlNode> where, boolean write, int defaultHostgroup) {
        List<TableRef> sharded = refs.stream().filter(r -> r.rule().sharded()).toList();
        List<TableRef> singles = refs.stream()
                .filter(r -> r.rule().strategy() instanceof SingleStrategy)
                .toList();
        List<TableRef> broadcasts = refs.stream()
                .filter(r -> r.rule().strategy() instanceof BroadcastStrategy)
                .toList();
        if (sharded.isEmpty()) {
            return unsharded(singles, broadcasts, write, defaultHostgroup);
        }
        if (!singles.isEmpty()) {
            return refuse("join of " + sharded.get(0).rule().name() + " (sharded) and "
                    + singles.get(0).rule().name() + " (on hostgroup "
                    + singles.get(0).rule().strategy().hostgroups().get(0) + ") is not supported");
        }
        for (TableRef r : sharded) {
            if (r.nested()) {
                return refuse("subquery on sharded table " + r.rule().name()
                        + " that is not tied to the outer query on the sharding key (key IN (SELECT key ...)"
                        + " or a correlation key = outer.key, within a binding group)");
            }
        }
        TableRef first = sharded.get(0);
        for (TableRef other : sharded.subList(1, sharded.size())) {
            if (!schemaBound(first.rule(), other.rule())) {
                return refuse("join of " + first.rule().name() + " and "
                        + other.rule().name() + " is not in one binding group");
            }
        }
        if (sharded.size() > 1 && !joinedOnKeys(sharded, joinConditions, where)) {
            return refuse("join of " + first.rule().name() + " and "
                    + sharded.get(1).rule().name() + " is not on their sharding keys");
        }
        List<Integer> hostgroups = first.rule().strategy().hostgroups();
        for (TableRef b : broadcasts) {
            if (!b.rule().strategy().hostgroups().containsAll(hostgroups)) {
                return refuse("broadcast table " + b.rule().name() + " is not copied to every hostgroup of "
                        + first.rule().name());
            }
        }
        return narrow(sharded, where);
    }

    private boolean schemaBound(TableRule a, TableRule b) {
        return schema != null && schema.bound(a.name(), b.name());
    }

    private Route unsharded(List<TableRef> singles, List<TableRef> broadcasts, boolean write, int defaultHostgroup) {
        Set<Integer> hgs = new TreeSet<>();
        singles.forEach(r -> hgs.add(((SingleStrategy) r.rule().strategy()).hostgroup()));
        if (hgs.size() > 1) {
            TableRef a = singles.get(0);
            TableRef b = singles.stream()
                    .filter(r -> !r.rule().strategy().equals(a.rule().strategy()))
                    .findFirst()
                    .orElseThrow();
            return refuse("join of " + a.rule().name() + " and " + b.rule().name() + " spans hostgroups "
                    + a.rule().strategy().hostgroups().get(0) + " and "
                    + b.rule().strategy().hostgroups().get(0));
        }
        if (hgs.size() == 1) {
            int hg = hgs.iterator().next();
            for (TableRef b : broadcasts) {
                if (!b.rule().strategy().hostgroups().contains(hg)) {
                    return refuse("broadcast table " + b.rule().name() + " has no copy on hostgroup " + hg);
                }
            }
            return new Route.OneHostgroup(hg, "table " + singles.get(0).rule().name());
        }
        if (broadcasts.isEmpty()) {
            return new Route.OneHostgroup(defaultHostgroup, "no table: default hostgroup");
        }
        Set<Integer> common = new TreeSet<>(broadcasts.get(0).rule().strategy().hostgroups());
        broadcasts.forEach(b -> common.retainAll(b.rule().strategy().hostgroups()));
        if (common.isEmpty()) {
            return refuse("broadcast tables " + broadcasts.get(0).rule().name() + " and "
                    + broadcasts.get(broadcasts.size() - 1).rule().name() + " share no hostgroup");
        }
        if (write) {
            // every copy must change; tables read by the write must be on each of them
            List<Integer> target = broadcasts.get(0).rule().strategy().hostgroups();
            if (!common.containsAll(target)) {
                return refuse("broadcast write to " + broadcasts.get(0).rule().name()
                        + " reads tables not copied to all its hostgroups");
            }
            return new Route.Broadcast(target, true);
        }
        return new Route.Broadcast(List.copyOf(common), false);
    }

    /** Every sharded table is linked to the first through equalities of their key columns. */
    private boolean joinedOnKeys(List<TableRef> sharded, List<SqlNode> joins, List<SqlNode> where) {
        Set<TableRef> linked = new HashSet<>();
        linked.add(sharded.get(0));
        List<SqlNode> all = new ArrayList<>(joins);
        all.addAll(where);
        boolean grew = true;
        while (grew) {
            grew = false;
            for (SqlNode c : all) {
                if (c.getKind() != SqlKind.EQUALS) {
                    continue;
                }
                SqlBasicCall eq = (SqlBasicCall) c;
                ColumnRef a = column(eq.operand(0));
                ColumnRef b = column(eq.operand(1));
                if (a == null || b == null || !isKey(a) || !isKey(b)) {
                    continue;
                }
                if (linked.contains(a.table()) && linked.add(b.table())) {
                    grew = true;
                } else if (linked.contains(b.table()) && linked.add(a.table())) {
                    grew = true;
                }
            }
        }
        return linked.containsAll(sharded);
    }

    /** Narrows the sharded tables by key equalities, IN lists and range bounds in the WHERE conjuncts. */
    private Route narrow(List<TableRef> sharded, List<SqlNode> where) {
        for (SqlNode c : where) {
            if (c.getKind() == SqlKind.EQUALS) {
                SqlBasicCall eq = (SqlBasicCall) c;
                Route r = keyEquals(eq.operand(0), eq.operand(1));
                r = r != null ? r : keyEquals(eq.operand(1), eq.operand(0));
                if (r != null) {
                    return r;
                }
            } else if (c.getKind() == SqlKind.IN) {
                SqlBasicCall in = (SqlBasicCall) c;
                ColumnRef col = column(in.operand(0));
                SqlNode list = in.operand(1);
                if (col != null
                        && isKey(col)
                        && list instanceof org.apache.calcite.sql.SqlNodeList l
                        && l.size() == 1
                        && l.get(0) instanceof SqlDynamicParam p) {
                    return new Route.ByKey(col.table().rule(), p.getIndex());
                }
            }
        }
        for (TableRef t : sharded) {
            if (t.rule().strategy() instanceof RangeStrategy) {
                Route r = range(t, where);
                if (r != null) {
                    return r;
                }
            }
        }
        return new Route.Scatter(sharded.get(0).rule());
    }

    private Route keyEquals(SqlNode columnSide, SqlNode valueSide) {
        ColumnRef col = column(columnSide);
        if (col != null && isKey(col) && valueSide instanceof SqlDynamicParam p) {
            return new Route.ByKey(col.table().rule(), p.getIndex());
        }
        return null;
    }

    private Route range(TableRef t, List<SqlNode> where) {
        int lower = -1;
        int upper = -1;
        boolean lowerInclusive = true;
        boolean upperInclusive = true;
        for (SqlNode c : where) {
            if (!(c instanceof SqlBasicCall call) || call.operandCount() < 2) {
                continue;
            }
            if (call.getOperator() instanceof SqlBetweenOperator between) {
                ColumnRef col = column(call.operand(0));
                if (!between.isNegated()
                        && col != null
                        && col.table() == t
                        && isKey(col)
                        && call.operand(1) instanceof SqlDynamicParam lo
                        && call.operand(2) instanceof SqlDynamicParam hi
                        && lower < 0
                        && upper < 0) {
                    lower = lo.getIndex();
                    upper = hi.getIndex();
                }
                continue;
            }
            SqlKind kind = call.getKind();
            ColumnRef col = column(call.operand(0));
            SqlNode value = call.operand(1);
            if (col == null) {
                col = column(call.operand(1));
                value = call.operand(0);
                kind = kind.reverse();
            }
            if (col == null || col.table() != t || !isKey(col) || !(value instanceof SqlDynamicParam p)) {
                continue;
            }
            if ((kind == SqlKind.GREATER_THAN || kind == SqlKind.GREATER_THAN_OR_EQUAL) && lower < 0) {
                lower = p.getIndex();
                lowerInclusive = kind == SqlKind.GREATER_THAN_OR_EQUAL;
            } else if ((kind == SqlKind.LESS_THAN || kind == SqlKind.LESS_THAN_OR_EQUAL) && upper < 0) {
                upper = p.getIndex();
                upperInclusive = kind == SqlKind.LESS_THAN_OR_EQUAL;
            }
        }
        if (lower < 0 && upper < 0) {
            return null;
        }
        return new Route.ByRange(t.rule(), lower, lowerInclusive, upper, upperInclusive);
    }

    private static boolean isKey(ColumnRef c) {
        return c.table().rule().sharded() && c.table().rule().keyed().column().equalsIgnoreCase(c.column());
    }

    /**
     * The table column an identifier names: {@code alias.col}, or a bare {@code col} that is the
     * sharding key of exactly one sharded table in scope (MySQL would reject it as ambiguous if
     * another table had it too).
     */
    ColumnRef column(SqlNode node) {
        if (!(node instanceof SqlIdentifier id) || id.isStar()) {
            return null;
        }
        if (id.names.size() == 2) {
            for (TableRef r : refs) {
                if (!r.nested() && r.alias().equalsIgnoreCase(id.names.get(0))) {
                    return new ColumnRef(r, id.names.get(1));
                }
            }
            return null;
        }
        if (id.names.size() != 1) {
            return null;
        }
        String name = id.names.get(0).toLowerCase(Locale.ROOT);
        ColumnRef found = null;
        for (TableRef r : refs) {
            if (!r.nested() && r.rule().sharded() && r.rule().keyed().column().equalsIgnoreCase(name)) {
                if (found != null) {
                    return null;
                }
                found = new ColumnRef(r, id.names.get(0));
            }
        }
        if (found == null && refs.stream().filter(r -> !r.nested()).count() == 1) {
            return new ColumnRef(
                    refs.stream().filter(r -> !r.nested()).findFirst().orElseThrow(), id.names.get(0));
        }
        return found;
    }

    /** The AND-ed conjuncts of a condition ({@code null} gives none). */
    static List<SqlNode> conjuncts(SqlNode condition) {
        List<SqlNode> out = new ArrayList<>();
        if (condition == null) {
            return out;
        }
        if (condition.getKind() == SqlKind.AND) {
            for (SqlNode operand : ((SqlCall) condition).getOperandList()) {
                out.addAll(conjuncts(operand));
            }
        } else {
            out.add(condition);
        }
        return out;
    }

    static Route refuse(String reason) {
        return Route.Refuse.notSupported(reason);
    }
}
