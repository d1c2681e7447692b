package io.shardgate.sharding.plan;

import io.shardgate.sharding.plan.MergeSpec.Column;
import io.shardgate.sharding.plan.MergeSpec.SortKey;
import io.shardgate.sharding.rule.Role;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;

/**
 * A UNION [ALL] whose SELECTs read sharded tables, run whole on every shard and merged: when each
 * SELECT's result is the union of what the shards compute for it (no aggregates, DISTINCT or LIMIT
 * unless grouped by the sharding key) and all its sharded tables live on the same hostgroups, the
 * union over the shards of each shard's UNION ALL is the statement's UNION ALL (every row comes
 * from exactly one shard), and a UNION is its DISTINCT. ORDER BY (result columns by name or
 * position) and LIMIT on the union are merged as for a scattered SELECT. A SELECT over broadcast
 * tables or tables of one hostgroup would repeat or fail on every shard: refused, as are mixed
 * UNION / UNION ALL. Returns a refusal reason instead of throwing.
 */
final class UnionPlanner {
    private final StatementContext context;

    UnionPlanner(StatementContext context) {
        this.context = context;
    }

    Planned plan(SqlCall union, SqlOrderBy orderBy, Role role) {
        boolean all = union.getOperator() == SqlStdOperatorTable.UNION_ALL;
        List<SqlSelect> selects = new ArrayList<>();
        String problem = flatten(union, all, selects);
        Route.Scatter route = null;
        for (int i = 0; problem == null && i < selects.size(); i++) {
            SqlSelect select = selects.get(i);
            TableCollector tables = new TableCollector(context.resolve()).tyingSubqueries();
            tables.select(select, false);
            if (tables.unsupported() != null || tables.refs.stream().anyMatch(TableRef::nested)) {
                problem = "SELECT " + (i + 1) + " of the UNION has a subquery or derived table over sharded tables";
                break;
            }
            Placement placement = new Placement(tables.refs, context.schema());
            Route r = placement.route(
                    tables.joinConditions, Placement.conjuncts(select.getWhere()), false, context.defaultHostgroup());
            if (r instanceof Route.Refuse refuse) {
                problem = refuse.reason();
            } else if (!(r instanceof Route.ByKey || r instanceof Route.ByRange || r instanceof Route.Scatter)) {
                problem = "SELECT " + (i + 1) + " of the UNION reads no sharded table (it would repeat or fail on"
                        + " every shard)";
            } else if (!DerivedTablePlanner.unionOfShards(select, placement)) {
                problem = "SELECT " + (i + 1) + " of the UNION aggregates, DISTINCTs or LIMITs across shards";
            } else {
                Route.Scatter scatter = new Route.Scatter(shardedTable(r));
                if (route == null) {
                    route = scatter;
                } else if (!route.all().equals(scatter.all())) {
                    problem = "the SELECTs of the UNION read tables on different hostgroups";
                }
            }
        }
        if (problem != null) {
            return Planned.refuse(StatementKind.SELECT, "UNION over sharded tables: " + problem);
        }
        try {
            return merge(selects, orderBy, !all, role, route);
        } catch (MergePlanner.Unsupported e) {
            return Planned.refuse(StatementKind.SELECT, "UNION over sharded tables: " + e.getMessage());
        }
    }

    private static io.shardgate.sharding.rule.TableRule shardedTable(Route r) {
        return r instanceof Route.ByKey k
                ? k.table()
                : r instanceof Route.ByRange b ? b.table() : ((Route.Scatter) r).table();
    }

    /** The SELECTs of a chain of one kind of UNION; a reason when it is not one. */
    private static String flatten(SqlNode node, boolean all, List<SqlSelect> out) {
        if (node instanceof SqlSelect select) {
            out.add(select);
            return null;
        }
        if (node.getKind() != SqlKind.UNION) {
            return node instanceof SqlOrderBy
                    ? "a SELECT of it has its own ORDER BY or LIMIT"
                    : node.getKind().sql + " inside it";
        }
        SqlCall call = (SqlCall) node;
        if ((call.getOperator() == SqlStdOperatorTable.UNION_ALL) != all) {
            return "UNION and UNION ALL mixed";
        }
        for (SqlNode operand : call.getOperandList()) {
            String problem = flatten(operand, all, out);
            if (problem != null) {
                return problem;
            }
        }
        return null;
    }

    /** ORDER BY result columns (the first SELECT's names or positions) and LIMIT, merged. */
    private Planned merge(List<SqlSelect> selects, SqlOrderBy orderBy, boolean distinct, Role role, Route route) {
        SqlSelect first = selects.get(0);
        List<SortKey> sort = new ArrayList<>();
        List<SqlTemplate.Edit> edits = new ArrayList<>();
        java.util.Set<Integer> compared = new java.util.TreeSet<>();
        if (distinct) {
            compared.addAll(allPositions(first));
        }
        int offset = -1;
        int count = -1;
        if (orderBy != null) {
            for (SqlNode o : orderBy.orderList) {
                boolean desc = o.getKind() == SqlKind.DESCENDING;
                SqlNode e = desc ? ((SqlCall) o).operand(0) : o;
                if (e instanceof SqlDynamicParam p) {
                    sort.add(SortKey.position(p.getIndex(), desc));
                    compared.addAll(allPositions(first));
                } else {
                    int at = resultColumn(first, e);
                    sort.add(new SortKey(new Column(at, false), desc));
                    compared.add(at);
                }
            }
            if (orderBy.fetch != null) {
                if (!(orderBy.fetch instanceof SqlDynamicParam fetch)
                        || (orderBy.offset != null && !(orderBy.offset instanceof SqlDynamicParam))) {
                    throw new MergePlanner.Unsupported("LIMIT that is not a number");
                }
                count = fetch.getIndex();
                if (orderBy.offset != null) {
                    offset = ((SqlDynamicParam) orderBy.offset).getIndex();
                    int start = Math.min(start(orderBy.offset), start(orderBy.fetch));
                    int keyword = context.text().lastIndexOf(" LIMIT ", start);
                    int end = Math.max(end(orderBy.fetch), end(orderBy.offset));
                    if (keyword < 0) {
                        throw new MergePlanner.Unsupported("LIMIT syntax");
                    }
                    edits.add(new SqlTemplate.Edit(
                            keyword, end, List.of(new ShardSql.Text(" LIMIT "), new ShardSql.LimitSum(offset, count))));
                }
            }
        }
        List<MergeSpec.Weights> weights = weigh(selects, compared, edits);
        if (distinct && !weights.isEmpty() && orderBy != null && orderBy.fetch != null) {
            // a shard's UNION over values and weights may keep 'a' and 'a ' apart (PAD SPACE): its
            // first rows are then not its first distinct values, so each shard returns them all
            int keyword = context.text().lastIndexOf(" LIMIT ", limitStart(orderBy));
            int end = Math.max(end(orderBy.fetch), orderBy.offset == null ? 0 : end(orderBy.offset));
            if (keyword < 0) {
                throw new MergePlanner.Unsupported("LIMIT syntax");
            }
            edits.removeIf(e -> e.start() == keyword); // LIMIT o+c
            edits.add(new SqlTemplate.Edit(
                    keyword, end, List.of(new ShardSql.Text(" LIMIT "), new ShardSql.EveryRowUnlessNone(count))));
        }
        edits.sort((a, b) -> Integer.compare(a.start(), b.start()));
        ShardSql scatter = edits.isEmpty()
                ? new ShardSql.Verbatim()
                : new ShardSql.Template(new SqlTemplate(context.text())
                        .segments(0, context.text().length(), edits));
        MergeSpec spec = new MergeSpec(
                sort,
                List.of(),
                List.of(),
                distinct,
                offset,
                count,
                2 * weights.size(),
                false,
                null,
                List.of(),
                weights,
                false,
                List.of());
        return new Planned(StatementKind.SELECT, role, route, new ShardSql.Verbatim(), scatter, spec);
    }

    /**
     * Adds to every SELECT of the union, after its items, the collation weights of the result
     * columns at {@code positions} (see {@link MergeSpec.Weights}): each SELECT weighs its own item,
     * and the merge refuses values of different collations in one column. A position where some
     * SELECT's item has literals, or a SELECT with *, gets none: the merge refuses to compare its
     * strings.
     */
    private List<MergeSpec.Weights> weigh(
            List<SqlSelect> selects, java.util.Set<Integer> positions, List<SqlTemplate.Edit> edits) {
        List<Integer> weighed = new ArrayList<>();
        for (int at : positions) {
            boolean plain = true;
            for (SqlSelect select : selects) {
                List<SqlNode> items = select.getSelectList().getList();
                if (at >= items.size()
                        || items.stream().anyMatch(i -> i instanceof SqlIdentifier id && id.isStar())
                        || source(MergePlanner.unalias(items.get(at))).contains("?")
                        || source(MergePlanner.unalias(items.get(at))).contains("(...)")) {
                    plain = false;
                }
            }
            if (plain) {
                weighed.add(at);
            }
        }
        if (weighed.isEmpty()) {
            return List.of();
        }
        for (SqlSelect select : selects) {
            List<SqlNode> items = select.getSelectList().getList();
            StringBuilder added = new StringBuilder();
            for (int at : weighed) {
                String e = source(MergePlanner.unalias(items.get(at)));
                added.append(", ")
                        .append(MergeSpec.Weights.weightOf(e))
                        .append(", ")
                        .append(MergeSpec.Weights.padOf(e));
            }
            int end = end(items.get(items.size() - 1));
            edits.add(new SqlTemplate.Edit(end, end, List.of(new ShardSql.Text(added.toString()))));
        }
        List<MergeSpec.Weights> weights = new ArrayList<>();
        for (int j = 0; j < weighed.size(); j++) {
            weights.add(new MergeSpec.Weights(
                    new Column(weighed.get(j), false), new Column(2 * j, true), new Column(2 * j + 1, true)));
        }
        return weights;
    }

    private static int limitStart(SqlOrderBy orderBy) {
        return orderBy.offset != null ? Math.min(start(orderBy.offset), start(orderBy.fetch)) : start(orderBy.fetch);
    }

    private static List<Integer> allPositions(SqlSelect first) {
        return java.util.stream.IntStream.range(0, first.getSelectList().size())
                .boxed()
                .toList();
    }

    private String source(SqlNode node) {
        return context.text().substring(start(node), end(node));
    }

    /** The position of the first SELECT's item that an ORDER BY key of the union names. */
    private int resultColumn(SqlSelect first, SqlNode key) {
        List<SqlNode> items = first.getSelectList().getList();
        for (int i = 0; i < items.size(); i++) {
            SqlNode item = items.get(i);
            if (item instanceof SqlIdentifier id && id.isStar()) {
                break;
            }
            if (MergePlanner.unalias(item).equalsDeep(key, org.apache.calcite.util.Litmus.IGNORE)) {
                return i;
            }
            String name = item.getKind() == SqlKind.AS
                    ? ((SqlIdentifier) ((SqlBasicCall) item).operand(1)).getSimple()
                    : item instanceof SqlIdentifier id ? id.names.get(id.names.size() - 1) : null;
            if (name != null
                    && key instanceof SqlIdentifier k
                    && k.isSimple()
                    && name.equalsIgnoreCase(k.getSimple())) {
                return i;
            }
        }
        throw new MergePlanner.Unsupported("ORDER BY " + context.text().substring(start(key), end(key))
                + " is not a column of the union's result");
    }

    private static int start(SqlNode node) {
        return node.getParserPosition().getColumnNum() - 1;
    }

    private static int end(SqlNode node) {
        return node.getParserPosition().getEndColumnNum();
    }
}
