package io.shardgate.merge;

import io.shardgate.protocol.type.ColumnFlags;
import io.shardgate.protocol.type.MySqlType;
import io.shardgate.sharding.plan.MergeSpec;
import io.shardgate.sharding.plan.MergeSpec.Aggregate;
import io.shardgate.sharding.plan.MergeSpec.SortKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * The result sets of several shards merged as MergeSpec says: group (combining aggregates), HAVING, DISTINCT
 * on the client's columns, ORDER BY, then LIMIT; hidden columns dropped. Rows stay in the shards'
 * buffers: a plain ORDER BY is a k-way merge of the shards' sorted rows and a plain concatenation
 * streams, so both hold one row per shard; grouping holds one row per group and DISTINCT one key per
 * distinct row.
 */
final class ResultSetMerge {
    /** A shard's column name for an AVG it was sent as SUM (the planner rewrites only the name). */
    private static final Pattern SUM_NAME = Pattern.compile("(?i)SUM\\s*\\(.*", Pattern.DOTALL);

    private static final int DECIMAL_MAX_SCALE = 38;
    private static final int DECIMAL_MAX_PRECISION = 65;
    private static final int FLOATING_POINT_DECIMALS = 31;
    /** MariaDB widens SUM over DECIMAL by this many digits (DECIMAL_LONGLONG_DIGITS). */
    private static final int SUM_PRECISION_INCREMENT = 22;
    /** AVG's extra digits (div_precision_increment's default). */
    private static final int AVG_PRECISION_INCREMENT = 4;

    private final MergeSpec spec;
    private final boolean binary;
    private final int clientColumns;
    /** Every shard column as merged (AVG retyped), and its ordering. */
    private final ResultColumn[] columns;

    /** The first shard's column definitions (aggregates read partials as the shards typed them). */
    private final List<ResultColumn> first;

    private final String[] names;
    private final ColumnOrder[] orders;
    private final Comparator<MergedRow> sort;
    /** By shard column: the select items over aggregates the merge computes (else null). */
    private final ComputedColumn[] computed;

    /** @param first the first shard's column definitions, which the merged ones derive from */
    ResultSetMerge(List<ResultColumn> first, MergeSpec spec, boolean binary) {
        this.first = first;
        this.spec = spec;
        this.binary = binary;
        int n = first.size();
        this.clientColumns = n - spec.hiddenColumns();
        if (clientColumns <= 0) {
            throw new MergeException(
                    "the shards sent " + n + " columns, not more than the " + spec.hiddenColumns() + " hidden ones");
        }
        this.columns = first.toArray(new ResultColumn[0]);
        this.names = new String[n];
        for (Aggregate a : spec.aggregates()) {
            if (a.function() == MergeSpec.Function.AVG) {
                int at = column(a.column());
                columns[at] = avgColumn(first.get(at));
                String name = first.get(at).name();
                names[at] = SUM_NAME.matcher(name).matches() ? "AVG" + name.substring(3) : null;
            }
        }
        this.computed = new ComputedColumn[n];
        for (MergeSpec.Computed c : spec.computed()) {
            int at = column(c.column());
            if (ComputedColumn.notNull(
                    c.expression(),
                    leaf -> ColumnFlags.has(first.get(column(leaf)).flags(), ColumnFlags.NOT_NULL_FLAG))) {
                ResultColumn typed = columns[at];
                columns[at] = typed.retyped(
                        typed.type(), typed.length(), typed.decimals(), typed.flags() | ColumnFlags.NOT_NULL_FLAG);
            }
            computed[at] = new ComputedColumn(c.expression(), columns[at], this::column);
            if (c.name() != null) {
                names[at] = c.name(); // the item as the client wrote it, as MySQL names it
            }
        }
        for (int at = 0; at < clientColumns; at++) {
            String written = spec.itemName(at);
            if (written != null) {
                names[at] = written; // rendered shard SQL named it otherwise
            }
        }
        this.orders = orders(columns, spec, this::column);
        List<SortKey> keys = spec.orderBy();
        if (keys.isEmpty() && !spec.groupBy().isEmpty()) {
            // MariaDB returns GROUP BY results sorted by the group keys when there is no ORDER BY
            keys = spec.groupBy().stream().map(c -> new SortKey(c, false)).toList();
        }
        this.sort = keys.isEmpty() ? null : comparator(keys);
    }

    /** Whether the merge folds rows into groups or distinct rows (else one row per shard suffices). */
    static boolean folds(MergeSpec spec) {
        return !spec.groupBy().isEmpty() || !spec.aggregates().isEmpty() || spec.distinct();
    }

    private boolean grouping() {
        return !spec.groupBy().isEmpty() || !spec.aggregates().isEmpty();
    }

    /**
     * Writes column count, definitions, {@code rows} after OFFSET up to the LIMIT, and the
     * terminator with {@code warnings}.
     */
    void write(
            ResponseWriter out,
            Iterator<? extends MergedRow> rows,
            long offset,
            long count,
            boolean deprecateEof,
            int warnings,
            int statusFlags) {
        List<ResultColumn> client = Arrays.asList(columns).subList(0, clientColumns);
        out.columnCount(clientColumns);
        for (int i = 0; i < clientColumns; i++) {
            out.columnDefinition(columns[i], names[i]);
        }
        if (!deprecateEof) {
            out.eof(0, statusFlags);
        }
        for (long skip = Math.max(offset, 0); skip > 0 && rows.hasNext(); skip--) {
            rows.next();
        }
        for (long left = count < 0 ? Long.MAX_VALUE : count; left > 0 && rows.hasNext(); left--) {
            MergedRow row = rows.next();
            if (binary) {
                out.binaryRow(row, client);
            } else {
                out.textRow(row, client);
            }
        }
        out.terminator(deprecateEof, warnings, statusFlags);
    }

    /** The merged rows of whole responses, in the client's order. */
    Iterator<? extends MergedRow> rows(List<ShardResponse> shards) {
        if (!folds(spec)) {
            return sort == null ? new ConcatenatedRows(shards, binary) : new SortedShardRows(shards, binary, sort);
        }
        GroupState state = groupState(shards.size());
        for (Iterator<ShardRow> it = new ConcatenatedRows(shards, binary); it.hasNext(); ) {
            state.add(it.next());
        }
        return rows(state);
    }

    /** An empty group state for rows of {@code shards} shards, for a merge that {@link #folds}. */
    GroupState groupState(int shards) {
        int[] keyColumns = grouping()
                ? spec.groupBy().stream().mapToInt(this::column).toArray()
                : IntStream.range(0, clientColumns).toArray();
        return new GroupState(shards, grouping(), keyColumns, orders, this::aggregators, computed);
    }

    /** The groups of {@code state} with HAVING and DISTINCT applied, sorted; consumes the state. */
    Iterator<? extends MergedRow> rows(GroupState state) {
        List<MergedRow> rows = state.rows();
        boolean grouping = grouping();
        if (grouping && spec.having() != null) {
            HavingFilter having = new HavingFilter(spec.having(), columns, orders, clientColumns);
            rows.removeIf(r -> !having.keeps(r));
        }
        if (grouping && spec.distinct()) {
            rows = distinct(rows.iterator());
        }
        if (sort != null) {
            rows.sort(sort); // stable: equal rows keep the shards' order
        }
        return rows.iterator();
    }

    private Aggregator[] aggregators() {
        Aggregator[] byColumn = new Aggregator[columns.length];
        for (Aggregate a : spec.aggregates()) {
            int at = column(a.column());
            int countAt = a.countColumn() == null ? -1 : column(a.countColumn());
            boolean distinct = a.function() == MergeSpec.Function.COUNT_DISTINCT
                    || a.function() == MergeSpec.Function.SUM_DISTINCT
                    || a.function() == MergeSpec.Function.AVG_DISTINCT;
            byColumn[at] = new Aggregator(
                    a.function(), at, countAt, columns[at], orders[at], distinct ? orders[countAt] : null);
        }
        return byColumn;
    }

    private List<MergedRow> distinct(Iterator<? extends MergedRow> rows) {
        Set<List<Object>> seen = new HashSet<>();
        List<MergedRow> out = new ArrayList<>();
        while (rows.hasNext()) {
            MergedRow row = rows.next();
            Object[] key = new Object[clientColumns];
            for (int i = 0; i < clientColumns; i++) {
                key[i] = orders[i].key(row);
            }
            if (seen.add(Arrays.asList(key))) {
                out.add(row);
            }
        }
        return out;
    }

    private Comparator<MergedRow> comparator(List<SortKey> keys) {
        int[] at = keys.stream()
                .mapToInt(k -> sortColumn(k.column(), clientColumns, columns.length))
                .toArray();
        boolean[] descending = new boolean[at.length];
        for (int i = 0; i < at.length; i++) {
            descending[i] = keys.get(i).descending();
        }
        return (a, b) -> {
            for (int i = 0; i < at.length; i++) {
                int c = orders[at[i]].compare(a, b);
                if (c != 0) {
                    return descending[i] ? -c : c;
                }
            }
            return 0;
        };
    }

    /**
     * Every shard column's ordering, string columns by the weights the spec says the shards send
     * beside them; {@code at} maps a spec column to its shard column.
     */
    static ColumnOrder[] orders(
            ResultColumn[] columns, MergeSpec spec, java.util.function.ToIntFunction<MergeSpec.Column> at) {
        int[] weight = new int[columns.length];
        int[] pad = new int[columns.length];
        Arrays.fill(weight, -1);
        for (MergeSpec.Weights w : spec.weights()) {
            int value = at.applyAsInt(w.value());
            weight[value] = at.applyAsInt(w.weight());
            pad[value] = at.applyAsInt(w.pad());
        }
        ColumnOrder[] orders = new ColumnOrder[columns.length];
        for (int i = 0; i < columns.length; i++) {
            orders[i] = ColumnOrder.of(columns[i], i, weight[i], pad[i], spec.namesInByteOrder());
        }
        return orders;
    }

    /** The shard column of an ORDER BY key; {@code ORDER BY n} past the client's columns is MySQL's 1054. */
    static int sortColumn(MergeSpec.Column c, int clientColumns, int total) {
        if (!c.fromEnd() && c.index() >= clientColumns) {
            throw MergeException.unknownOrderColumn(c.index() + 1);
        }
        int at = c.fromEnd() ? clientColumns + c.index() : c.index();
        if (at < 0 || at >= total) {
            throw new MergeException("the merge refers to column " + (at + 1) + " of " + total);
        }
        return at;
    }

    private int column(MergeSpec.Column c) {
        int at = c.fromEnd() ? clientColumns + c.index() : c.index();
        if (at < 0 || at >= columns.length) {
            throw new MergeException("the merge refers to column " + (at + 1) + " of " + columns.length);
        }
        return at;
    }

    /**
     * AVG's column as MariaDB types it, derived from the shard's SUM column: DECIMAL with 4 more
     * decimals and 4 more digits than the argument (whose precision is SUM's less 22), or DOUBLE.
     * The argument's exact length is lost in SUM, so the length of an AVG of FLOAT (16 on the
     * server) comes out as DOUBLE's 23.
     */
    private static ResultColumn avgColumn(ResultColumn sum) {
        // MariaDB marks AVG BINARY even where the SUM of a GROUP BY lacks it
        int flags = sum.flags() | ColumnFlags.BINARY_FLAG;
        if (sum.type() == MySqlType.NEWDECIMAL || sum.type() == MySqlType.DECIMAL) {
            int decimals = Math.min(sum.decimals() + AVG_PRECISION_INCREMENT, DECIMAL_MAX_SCALE);
            long sumPrecision = sum.length() - (sum.decimals() > 0 ? 1 : 0) - 1;
            long argPrecision = Math.max(1, sumPrecision - SUM_PRECISION_INCREMENT);
            long precision = Math.min(argPrecision + AVG_PRECISION_INCREMENT, DECIMAL_MAX_PRECISION);
            return sum.retyped(MySqlType.NEWDECIMAL, precision + (decimals > 0 ? 1 : 0) + 1, decimals, flags);
        }
        int decimals = sum.decimals() >= FLOATING_POINT_DECIMALS
                ? FLOATING_POINT_DECIMALS
                : Math.min(sum.decimals() + AVG_PRECISION_INCREMENT, FLOATING_POINT_DECIMALS);
        return sum.retyped(MySqlType.DOUBLE, sum.length(), decimals, flags);
    }

    static void checkShapes(List<ShardResponse> shards) {
        List<ResultColumn> first = shards.get(0).columns;
        for (ShardResponse s : shards) {
            checkShape(first, s.columns, s.shard);
        }
    }

    /** The shards' result sets must have the same columns, of the same types, to be merged. */
    static void checkShape(List<ResultColumn> first, List<ResultColumn> other, int shard) {
        if (other.size() != first.size()) {
            throw new MergeException("shard 1 returned " + first.size() + " columns, shard " + (shard + 1)
                    + " returned " + other.size());
        }
        for (int i = 0; i < first.size(); i++) {
            if (other.get(i).type() != first.get(i).type()) {
                throw new MergeException(
                        "column " + (i + 1) + " is " + first.get(i).type() + " on shard 1 but "
                                + other.get(i).type() + " on shard " + (shard + 1));
            }
        }
    }
}
