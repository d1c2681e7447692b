package io.shardgate.sharding.plan;

import io.shardgate.sharding.plan.MergeSpec.Aggregate;
import io.shardgate.sharding.plan.MergeSpec.Column;
import io.shardgate.sharding.plan.MergeSpec.SortKey;
import io.shardgate.sharding.rule.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * Builds the shard SQL and the {@link MergeSpec} of a SELECT that may run on several hostgroups:
 * AVG split into SUM and a hidden COUNT, ORDER BY and GROUP BY keys that are not selected added as
 * hidden columns, LIMIT pushed down as offset+count (or removed when groups span shards). Anything
 * the merge cannot reproduce exactly is refused with the reason.
 */
final class MergePlanner {
    private final String text;
    private final Placement placement;
    private final List<SqlTemplate.Edit> edits = new ArrayList<>();
    private final List<String> hidden = new ArrayList<>();
    /** The string columns the merge compares, with the hidden columns of their collation weights. */
    private final List<MergeSpec.Weights> weights = new ArrayList<>();
    /** The argument of the DISTINCT aggregates (COUNT/SUM/AVG), which the shards group by too; or null. */
    private String distinctArgument;

    private Column distinctColumn;
    /** Select items with literals whose weights the shards are asked for (see {@link #weighWithLiterals}). */
    private final List<ItemWithLiterals> withLiterals = new ArrayList<>();

    /** The statement's select items (for {@link #weighAggregates}). */
    private SqlNodeList itemsOf;

    /** HAVING for the merge to evaluate, or null. */
    private HavingCondition having;

    MergePlanner(String text, Placement placement) {
        this.text = text;
        this.placement = placement;
    }

    Planned plan(SqlSelect select, SqlOrderBy orderBy, Role role, Route route) {
        try {
            return build(select, orderBy, role, route);
        } catch (Unsupported e) {
            return Planned.of(StatementKind.SELECT, role, Route.Refuse.notSupported(e.getMessage()));
        }
    }

    private Planned build(SqlSelect select, SqlOrderBy orderBy, Role role, Route route) {
        SqlNodeList items = select.getSelectList();
        itemsOf = items;
        boolean star = items.stream().anyMatch(i -> i instanceof SqlIdentifier id && id.isStar());
        List<SqlNode> group =
                select.getGroup() == null ? List.of() : select.getGroup().getList();
        boolean shardLocal = !group.isEmpty() && group.stream().anyMatch(this::isShardingKey);
        List<Aggregate> aggregates = new ArrayList<>();
        List<Column> groupColumns = new ArrayList<>();
        List<MergeSpec.Computed> computed = new ArrayList<>();
        boolean merging = !shardLocal && (!group.isEmpty() || items.stream().anyMatch(MergePlanner::hasAggregate));
        if (merging) {
            for (SqlNode g : group) {
                Column c = column(g, items, star, false);
                groupColumns.add(c);
                weigh(c, items);
            }
            AggregateExpressionTranslator expressions =
                    new AggregateExpressionTranslator(this, group, groupColumns, aggregates);
            for (int i = 0; i < items.size(); i++) {
                SqlCall agg = aggregate(items.get(i));
                if (agg != null) {
                    aggregates.add(aggregateOf(agg, i, star));
                    continue;
                }
                if (hasAggregate(items.get(i))) {
                    if (star) {
                        throw new Unsupported("expression over aggregates with SELECT * on several shards");
                    }
                    SqlNode item = items.get(i);
                    boolean aliased = item.getKind() == SqlKind.AS;
                    neverEvaluated(unalias(item));
                    computed.add(new MergeSpec.Computed(
                            new Column(i, false),
                            expressions.translate(item),
                            aliased ? -1 : start(item),
                            aliased ? -1 : end(item)));
                    continue;
                }
                SqlNode plain = unalias(items.get(i));
                String alias = items.get(i).getKind() == SqlKind.AS
                        ? ((SqlIdentifier) ((SqlBasicCall) items.get(i)).operand(1)).getSimple()
                        : null;
                if (group.stream()
                        .noneMatch(g -> g.equalsDeep(plain, org.apache.calcite.util.Litmus.IGNORE)
                                || (alias != null
                                        && g instanceof SqlIdentifier id
                                        && id.isSimple()
                                        && id.getSimple().equalsIgnoreCase(alias)))) {
                    throw new Unsupported("select item " + source(items.get(i)) + " is neither aggregated nor grouped");
                }
            }
            if (distinctArgument != null) {
                groupAlsoByDistinctArgument(select, group);
            }
            weighAggregates(aggregates);
            if (select.getHaving() != null) {
                if (star) {
                    throw new Unsupported("HAVING with SELECT * on several shards");
                }
                HavingCondition condition = new HavingTranslator(this, items, group, groupColumns, aggregates)
                        .condition(select.getHaving());
                weighAggregates(aggregates);
                if (!HavingTranslator.onlyKeys(condition, groupColumns)) {
                    // over aggregates the shards hold only parts of: the merge evaluates it
                    having = condition;
                    removeHaving(select.getHaving());
                }
            }
        }
        List<SortKey> sort = new ArrayList<>();
        if (orderBy != null) {
            for (SqlNode o : orderBy.orderList) {
                boolean desc = o.getKind() == SqlKind.DESCENDING;
                SqlNode e = desc ? ((SqlCall) o).operand(0) : o;
                if (e.getKind() == SqlKind.NULLS_FIRST || e.getKind() == SqlKind.NULLS_LAST) {
                    throw new Unsupported("NULLS FIRST/LAST");
                }
                if (e instanceof SqlDynamicParam p) {
                    // ORDER BY 2: a position or a constant, as the execution's literal says
                    sort.add(SortKey.position(p.getIndex(), desc));
                    weighEveryItem(items, star);
                    continue;
                }
                if (e instanceof SqlLiteral) {
                    throw new Unsupported("ORDER BY a constant on several shards");
                }
                Column c = column(e, items, star, merging || select.isDistinct());
                sort.add(new SortKey(c, desc));
                weigh(c, items);
            }
        }
        if (select.isDistinct()) {
            weighEveryItem(items, star);
        }
        int offset = -1;
        int count = -1;
        if (orderBy != null && orderBy.fetch != null) {
            if (!(orderBy.fetch instanceof SqlDynamicParam fetch)
                    || (orderBy.offset != null && !(orderBy.offset instanceof SqlDynamicParam))) {
                throw new Unsupported("LIMIT that is not a number");
            }
            count = fetch.getIndex();
            offset = orderBy.offset == null ? -1 : ((SqlDynamicParam) orderBy.offset).getIndex();
            // a shard's DISTINCT over values and weights may keep 'a' and 'a ' apart (PAD SPACE): its
            // first rows are then not its first distinct values, so each shard returns them all
            limit(orderBy, merging, select.isDistinct() && !weights.isEmpty(), offset, count);
        }
        int hiddenCount = hidden.size() + 2 * withLiterals.size();
        if (hiddenCount > 0) {
            SqlParserPos last = items.get(items.size() - 1).getParserPosition();
            int end = last.getEndColumnNum();
            List<ShardSql.Segment> added = new ArrayList<>();
            if (!hidden.isEmpty()) {
                added.add(new ShardSql.Text(", " + String.join(", ", hidden)));
            }
            weighWithLiterals(added);
            edits.add(new SqlTemplate.Edit(end, end, added));
        }
        edits.sort((a, b) -> Integer.compare(a.start(), b.start()));
        ShardSql scatter = edits.isEmpty()
                ? new ShardSql.Verbatim()
                : new ShardSql.Template(new SqlTemplate(text).segments(0, text.length(), edits));
        MergeSpec merge = new MergeSpec(
                sort,
                groupColumns,
                aggregates,
                select.isDistinct(),
                offset,
                count,
                hiddenCount,
                false,
                having,
                computed,
                weights,
                false,
                edits.isEmpty() ? List.of() : renderedItemNames(items, star, computed));
        return new Planned(StatementKind.SELECT, role, route, new ShardSql.Verbatim(), scatter, merge);
    }

    /**
     * The unaliased computed items of a select list sent to the shards as rendered SQL: their
     * column names must be the client's text (the shards name them after the rendered text). Items
     * the merge computes name themselves; plain columns and literals are named alike in both.
     */
    private List<MergeSpec.ItemName> renderedItemNames(
            SqlNodeList items, boolean star, List<MergeSpec.Computed> computed) {
        List<MergeSpec.ItemName> names = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            SqlNode item = items.get(i);
            int index = i;
            if (!(item instanceof SqlCall)
                    || item.getKind() == SqlKind.AS
                    || computed.stream()
                            .anyMatch(c ->
                                    c.column().index() == index && !c.column().fromEnd())) {
                continue;
            }
            if (star) {
                throw new Unsupported("unaliased expression " + source(item) + " next to * on several shards"
                        + " (its column name would differ; give it an alias)");
            }
            names.add(new MergeSpec.ItemName(i, start(item), end(item)));
        }
        return names;
    }

    private void limit(SqlOrderBy orderBy, boolean merging, boolean everyRow, int offset, int count) {
        int first =
                orderBy.offset != null ? Math.min(start(orderBy.offset), start(orderBy.fetch)) : start(orderBy.fetch);
        int keyword = text.lastIndexOf(" LIMIT ", first);
        int end = Math.max(end(orderBy.fetch), orderBy.offset == null ? 0 : end(orderBy.offset));
        if (keyword < 0) {
            throw new Unsupported("LIMIT syntax");
        }
        if (merging) {
            // groups span shards: each shard must return all its groups; the merge applies LIMIT
            edits.add(new SqlTemplate.Edit(keyword, end, List.of()));
        } else if (everyRow) {
            edits.add(new SqlTemplate.Edit(
                    keyword, end, List.of(new ShardSql.Text(" LIMIT "), new ShardSql.EveryRowUnlessNone(count))));
        } else if (offset >= 0) {
            edits.add(new SqlTemplate.Edit(
                    keyword, end, List.of(new ShardSql.Text(" LIMIT "), new ShardSql.LimitSum(offset, count))));
        }
    }

    private Aggregate aggregateOf(SqlCall call, int index, boolean star) {
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        boolean distinct = call.getFunctionQuantifier() != null
                && call.getFunctionQuantifier().toValue().equalsIgnoreCase("DISTINCT");
        if (distinct && !name.equals("MIN") && !name.equals("MAX")) {
            return distinctAggregate(call, name, index, star);
        }
        Column at = star ? hiddenColumn(source(call)) : new Column(index, false);
        switch (name) {
            case "COUNT":
                return new Aggregate(MergeSpec.Function.COUNT, at, null);
            case "SUM":
                return new Aggregate(MergeSpec.Function.SUM, at, null);
            case "MIN":
                return new Aggregate(MergeSpec.Function.MIN, at, null);
            case "MAX":
                return new Aggregate(MergeSpec.Function.MAX, at, null);
            default: {
                String src = source(call); // AVG(x): shards return SUM(x) here and COUNT(x) hidden
                String args = src.substring(src.indexOf('('));
                if (args.contains("?") || args.contains("(...)")) {
                    throw new Unsupported("AVG over an expression with literals on several shards");
                }
                if (star) {
                    hidden.set(at.index(), "SUM" + args);
                } else {
                    int s = start(call);
                    edits.add(new SqlTemplate.Edit(s, s + 3, List.of(new ShardSql.Text("SUM"))));
                }
                return new Aggregate(MergeSpec.Function.AVG, at, hiddenColumn("COUNT" + args));
            }
        }
    }

    /**
     * COUNT/SUM/AVG(DISTINCT x): each shard also groups by x and returns x as a hidden column, so the
     * merge sees every distinct value of x once per shard and group, whatever the shard's own
     * aggregate says. Every DISTINCT aggregate of the statement must have the same argument.
     */
    private Aggregate distinctAggregate(SqlCall call, String name, int index, boolean star) {
        if (star) {
            throw new Unsupported(name + "(DISTINCT) with SELECT * on several shards");
        }
        if (call.operandCount() != 1) {
            throw new Unsupported(name + "(DISTINCT) of several expressions on several shards");
        }
        String argument = source(call.operand(0));
        if (aggregate(call.operand(0)) != null) {
            throw new Unsupported(name + "(DISTINCT) of an aggregate");
        }
        if (distinctArgument == null) {
            distinctColumn = hiddenColumn(argument);
            distinctArgument = argument;
        } else if (!distinctArgument.equals(argument)) {
            throw new Unsupported("DISTINCT aggregates of different expressions (" + distinctArgument + ", " + argument
                    + ") on several shards");
        }
        MergeSpec.Function function = switch (name) {
            case "COUNT" -> MergeSpec.Function.COUNT_DISTINCT;
            case "SUM" -> MergeSpec.Function.SUM_DISTINCT;
            default -> MergeSpec.Function.AVG_DISTINCT;
        };
        return new Aggregate(function, new Column(index, false), distinctColumn);
    }

    /** Adds the DISTINCT aggregates' argument to the shards' GROUP BY (or gives them one). */
    private void groupAlsoByDistinctArgument(SqlSelect select, List<SqlNode> group) {
        if (select.getGroup() != null && !group.isEmpty()) {
            int at = end(group.get(group.size() - 1));
            edits.add(new SqlTemplate.Edit(at, at, List.of(new ShardSql.Text(", " + distinctArgument))));
            return;
        }
        SqlNode before = select.getWhere() != null ? select.getWhere() : select.getFrom();
        if (before == null) {
            throw new Unsupported("DISTINCT aggregate without FROM");
        }
        int at = end(before);
        edits.add(new SqlTemplate.Edit(at, at, List.of(new ShardSql.Text(" GROUP BY " + distinctArgument))));
    }

    /**
     * Removes HAVING from the shards' SQL: they hold partial aggregates, the merge evaluates it. The
     * clause ends where ORDER BY, LIMIT or a locking clause starts, or with the text.
     */
    private void removeHaving(SqlNode condition) {
        int keyword = text.lastIndexOf(" HAVING ", start(condition));
        if (keyword < 0) {
            throw new Unsupported("HAVING syntax");
        }
        int stop = text.length();
        for (String next : List.of(" ORDER BY ", " LIMIT ", " FOR UPDATE", " LOCK IN SHARE MODE")) {
            int at = text.indexOf(next, end(condition) - 1);
            if (at >= 0) {
                stop = Math.min(stop, at);
            }
        }
        edits.add(new SqlTemplate.Edit(keyword, stop, List.of()));
    }

    /** The shard column holding {@code e}: a selected item, else a hidden column added for it. */
    private Column column(SqlNode e, SqlNodeList items, boolean star, boolean mustBeSelected) {
        for (int i = 0; i < items.size(); i++) {
            SqlNode item = items.get(i);
            boolean byAlias = item.getKind() == SqlKind.AS
                    && e instanceof SqlIdentifier id
                    && id.isSimple()
                    && ((SqlIdentifier) ((SqlBasicCall) item).operand(1))
                            .getSimple()
                            .equalsIgnoreCase(id.getSimple());
            if (byAlias || unalias(item).equalsDeep(e, org.apache.calcite.util.Litmus.IGNORE)) {
                return star ? hiddenColumn(source(unalias(item))) : new Column(i, false);
            }
        }
        if (mustBeSelected) {
            throw new Unsupported("ORDER BY " + source(e) + " must be a selected column with DISTINCT, GROUP BY or"
                    + " aggregates on several shards");
        }
        return hiddenColumn(source(e));
    }

    /**
     * Asks the shards for the collation weights of the merge key at {@code c}, a select item or a
     * hidden column (see {@link MergeSpec.Weights}). Numbers and dates have no weights (NULL); the
     * merge ignores them for such columns. A select item with literals is weighed with the
     * execution's values ({@link #weighWithLiterals}); an ORDER BY or GROUP BY key with literals that
     * is not selected is refused by {@link #hiddenColumn}. Items the merge computes get none, and the
     * merge refuses to compare them if they are strings.
     */
    private void weigh(Column c, SqlNodeList items) {
        if (c.fromEnd()) {
            weigh(c, hidden.get(c.index()));
        } else if (c.index() < items.size() && !mergedByValue(items.get(c.index()))) {
            SqlNode e = unalias(items.get(c.index()));
            String expression = source(e);
            if ((expression.contains("?") || expression.contains("(...)"))
                    && weights.stream().noneMatch(w -> w.value().equals(c))
                    && withLiterals.stream().noneMatch(w -> w.column().equals(c))) {
                withLiterals.add(new ItemWithLiterals(c, start(e), end(e)));
            } else {
                weigh(c, expression);
            }
        }
    }

    /** A select item with literals the merge compares: its weights carry the execution's values. */
    private record ItemWithLiterals(Column column, int start, int end) {}

    /**
     * Appends the weight and pad columns of the items with literals after every other hidden
     * column, the item's text (with its slots) written where the expression goes.
     */
    private void weighWithLiterals(List<ShardSql.Segment> added) {
        SqlTemplate template = new SqlTemplate(text);
        int at = hidden.size();
        for (ItemWithLiterals item : withLiterals) {
            List<ShardSql.Segment> e = template.segments(item.start(), item.end(), List.of());
            for (String sql : List.of(MergeSpec.Weights.weightOf("\0"), MergeSpec.Weights.padOf("\0"))) {
                added.add(new ShardSql.Text(", "));
                String[] parts = sql.split("\0", -1);
                for (int i = 0; i < parts.length; i++) {
                    if (i > 0) {
                        added.addAll(e);
                    }
                    added.add(new ShardSql.Text(parts[i]));
                }
            }
            weights.add(new MergeSpec.Weights(item.column(), new Column(at, true), new Column(at + 1, true)));
            at += 2;
        }
    }

    /**
     * Whether the merge computes the item from the shards' partial values (COUNT, SUM, AVG, an
     * expression over aggregates): a shard's weight of its own partial value would be wrong for it,
     * and the merge refuses to compare such an item if it is a string. MIN and MAX keep a shard's value.
     */
    private static boolean mergedByValue(SqlNode item) {
        SqlCall agg = aggregate(item);
        if (agg == null) {
            return hasAggregate(item);
        }
        String name = agg.getOperator().getName().toUpperCase(Locale.ROOT);
        return !name.equals("MIN") && !name.equals("MAX");
    }

    private void weigh(Column c, String expression) {
        if (expression.contains("?")
                || expression.contains("(...)")
                || weights.stream().anyMatch(w -> w.value().equals(c))
                || withLiterals.stream().anyMatch(w -> w.column().equals(c))) {
            return;
        }
        Column weight = hiddenColumn(MergeSpec.Weights.weightOf(expression));
        Column pad = hiddenColumn(MergeSpec.Weights.padOf(expression));
        weights.add(new MergeSpec.Weights(c, weight, pad));
    }

    /**
     * Weighs the values MIN and MAX compare (select items, or hidden columns of aggregates inside
     * expressions and HAVING) and the argument of COUNT(DISTINCT); called again once HAVING has
     * added its own.
     */
    private void weighAggregates(List<Aggregate> aggregates) {
        for (Aggregate a : aggregates) {
            if (a.function() == MergeSpec.Function.MIN || a.function() == MergeSpec.Function.MAX) {
                String expression = a.column().fromEnd() ? hidden.get(a.column().index()) : null;
                if (expression == null) {
                    SqlCall call = aggregate(itemsOf.get(a.column().index()));
                    expression = call == null ? null : source(call);
                }
                if (expression != null) {
                    weigh(a.column(), expression);
                }
            } else if (a.function() == MergeSpec.Function.COUNT_DISTINCT && distinctArgument != null) {
                weigh(a.countColumn(), distinctArgument);
            }
        }
    }

    /** Weighs every select item: DISTINCT compares them all, ORDER BY n any of them. */
    private void weighEveryItem(SqlNodeList items, boolean star) {
        if (star) {
            return; // the items of * are unknown here: the merge refuses to compare their strings
        }
        for (int i = 0; i < items.size(); i++) {
            weigh(new Column(i, false), items);
        }
    }

    Column hiddenColumn(String expression) {
        if (expression.contains("?") || expression.contains("(...)")) {
            throw new Unsupported("sort or group key with literals that is not selected (" + expression + ")");
        }
        hidden.add(expression);
        return new Column(hidden.size() - 1, true);
    }

    private boolean isShardingKey(SqlNode node) {
        Placement.ColumnRef c = placement.column(node);
        return c != null
                && c.table().rule().sharded()
                && c.table().rule().keyed().column().equalsIgnoreCase(c.column());
    }

    static SqlCall aggregate(SqlNode item) {
        SqlNode e = unalias(item);
        if (e instanceof SqlCall call && call.getOperator() != null) {
            String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
            if (List.of("COUNT", "SUM", "MIN", "MAX", "AVG").contains(name)) {
                return call;
            }
        }
        return null;
    }

    /** Whether a select item is or contains an aggregate call. */
    static boolean hasAggregate(SqlNode item) {
        SqlNode e = unalias(item);
        return aggregate(e) != null || (e instanceof SqlCall call && containsAggregate(call));
    }

    private static boolean containsAggregate(SqlCall call) {
        for (SqlNode operand : call.getOperandList()) {
            if (operand instanceof SqlCall c) {
                String name = c.getOperator().getName().toUpperCase(Locale.ROOT);
                if (List.of("COUNT", "SUM", "MIN", "MAX", "AVG").contains(name) || containsAggregate(c)) {
                    return true;
                }
            }
        }
        return false;
    }

    static SqlNode unalias(SqlNode item) {
        return item.getKind() == SqlKind.AS ? ((SqlBasicCall) item).operand(0) : item;
    }

    String source(SqlNode node) {
        return text.substring(start(node), end(node));
    }

    /**
     * Wraps an item the merge computes in {@code IF(FALSE, item, NULL)} on the shards: the shard
     * still types it (the same type, length and decimals; only NOT NULL is lost, which the merge
     * restores) but never evaluates it over its partial groups, where it can fail (a BIGINT
     * overflow of {@code MAX(a) - MAX(b)} over one shard's rows) on groups MySQL's whole groups do
     * not fail on, or on groups MySQL never evaluates (past a LIMIT).
     */
    private void neverEvaluated(SqlNode expression) {
        int s = start(expression);
        int e = end(expression);
        edits.add(new SqlTemplate.Edit(s, s, List.of(new ShardSql.Text("IF(FALSE, "))));
        edits.add(new SqlTemplate.Edit(e, e, List.of(new ShardSql.Text(", NULL)"))));
    }

    private static int start(SqlNode node) {
        return node.getParserPosition().getColumnNum() - 1;
    }

    private static int end(SqlNode node) {
        return node.getParserPosition().getEndColumnNum();
    }

    /** A construct the merge cannot reproduce; becomes a Refuse with this message. */
    static final class Unsupported extends RuntimeException {
        Unsupported(String message) {
            super(message, null, false, false);
        }
    }
}
