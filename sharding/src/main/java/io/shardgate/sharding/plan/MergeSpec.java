package io.shardgate.sharding.plan;

import java.util.List;

/**
 * How the results of several targets become one result; unused when a plan runs on one target.
 * Rows of shard results have the client's columns first and {@code hiddenColumns} extra columns
 * last (ORDER BY or GROUP BY keys not selected, COUNTs of split AVGs, collation {@link Weights}),
 * which the merge drops.
 *
 * <p>Order of operations: group rows by {@code groupBy} combining {@code aggregates} (all rows are
 * one group when there are aggregates and no keys), keep the groups {@code having} holds for, apply DISTINCT on the client's columns, sort by
 * {@code orderBy} (a k-way merge when shards already sort), skip {@code offset} then keep {@code
 * count} rows. For DML, {@code sumAffectedRows} adds the targets' affected-row counts.
 *
 * @param offset slot of the LIMIT offset, or -1
 * @param count slot of the LIMIT row count, or -1 (no LIMIT)
 * @param having the HAVING clause the merge evaluates on the merged groups (before DISTINCT,
 *     ORDER BY and LIMIT), or null
 * @param computed select items over aggregates the merge computes per group (see {@link
 *     MergeExpression})
 * @param weights the hidden columns holding the collation weights of string columns the merge
 *     compares (see {@link Weights}); a non-binary string compared without them is refused
 * @param namesInByteOrder strings compare byte by byte: the server lists table and database names
 *     (SHOW TABLES, SHOW DATABASES, SHOW TABLE STATUS) in byte order, whatever the collation
 * @param itemNames unaliased select items the shards name after rendered text (see {@link ItemName})
 */
public record MergeSpec(
        List<SortKey> orderBy,
        List<Column> groupBy,
        List<Aggregate> aggregates,
        boolean distinct,
        int offset,
        int count,
        int hiddenColumns,
        boolean sumAffectedRows,
        HavingCondition having,
        List<Computed> computed,
        List<Weights> weights,
        boolean namesInByteOrder,
        List<ItemName> itemNames) {

    public static final MergeSpec CONCAT = new MergeSpec(List.of(), List.of(), List.of(), false, -1, -1, 0, false);
    public static final MergeSpec AFFECTED_ROWS =
            new MergeSpec(List.of(), List.of(), List.of(), false, -1, -1, 0, true);

    public MergeSpec(
            List<SortKey> orderBy,
            List<Column> groupBy,
            List<Aggregate> aggregates,
            boolean distinct,
            int offset,
            int count,
            int hiddenColumns,
            boolean sumAffectedRows) {
        this(orderBy, groupBy, aggregates, distinct, offset, count, hiddenColumns, sumAffectedRows, null, List.of());
    }

    public MergeSpec(
            List<SortKey> orderBy,
            List<Column> groupBy,
            List<Aggregate> aggregates,
            boolean distinct,
            int offset,
            int count,
            int hiddenColumns,
            boolean sumAffectedRows,
            HavingCondition having,
            List<Computed> computed) {
        this(
                orderBy,
                groupBy,
                aggregates,
                distinct,
                offset,
                count,
                hiddenColumns,
                sumAffectedRows,
                having,
                computed,
                List.of(),
                false,
                List.of());
    }

    /** This merge comparing strings byte by byte, as the server orders table and database names. */
    public MergeSpec comparingNamesByBytes() {
        return new MergeSpec(
                orderBy,
                groupBy,
                aggregates,
                distinct,
                offset,
                count,
                hiddenColumns,
                sumAffectedRows,
                having,
                computed,
                weights,
                true,
                itemNames);
    }

    /** The client's name of select item {@code index} when the shards name it otherwise, or null. */
    public String itemName(int index) {
        for (ItemName n : itemNames) {
            if (n.index() == index) {
                return n.name();
            }
        }
        return null;
    }

    public MergeSpec {
        orderBy = List.copyOf(orderBy);
        groupBy = List.copyOf(groupBy);
        aggregates = List.copyOf(aggregates);
        computed = List.copyOf(computed);
        weights = List.copyOf(weights);
        itemNames = List.copyOf(itemNames);
    }

    /**
     * Where the shards send the collation weights of the string column {@code value}: {@code
     * weight} holds {@code WEIGHT_STRING(e)}, and {@code pad} e's collation name, ':', 'P' under
     * PAD SPACE or 'N' under NO PAD ({@code LEFT(e,0) = ' '}: '' = ' ' holds only when trailing
     * spaces are ignored), and the weight of two spaces in that collation (one unit twice unless the
     * collation weighs several levels). Two values compare as their weights do byte by byte, the
     * shorter padded with space weights under PAD SPACE. (WEIGHT_STRING of a number is NULL; the
     * merge reads weights only for string columns.)
     */
    public record Weights(Column value, Column weight, Column pad) {
        /** The shard SQL of the weight of expression {@code e}. */
        public static String weightOf(String e) {
            return "WEIGHT_STRING(" + e + ")";
        }

        /** The shard SQL of the collation, padding and space weight of expression {@code e}. */
        public static String padOf(String e) {
            // NULL for numbers, dates and binary strings, which the merge compares without weights
            return "IF(COLLATION(" + e + ") = 'binary', NULL, CONCAT(COLLATION(" + e + "), ':', IF(LEFT(" + e
                    + ",0) = ' ', 'P', 'N'), WEIGHT_STRING(CONCAT(LEFT(" + e + ",0),'  '))))";
        }

        @Override
        public String toString() {
            return value + " by " + weight + " pad " + pad;
        }
    }

    /**
     * A select item the merge computes from merged columns ({@link MergeExpression}); the shards'
     * value at {@code column} is only read for its column definition.
     */
    public record Computed(Column column, MergeExpression expression, int textStart, int textEnd, String name) {
        /**
         * @param textStart start of an unaliased item in the normalized text (its column name, as
         *     the client wrote it, is found per execution: {@link #resolve}), or -1 for an aliased one
         */
        public Computed(Column column, MergeExpression expression, int textStart, int textEnd) {
            this(column, expression, textStart, textEnd, null);
        }

        /** This item for one execution: slots replaced by values, the column name as the client wrote it. */
        Computed resolve(Values values) {
            String written = textStart < 0 ? null : ClientText.of(values.digest(), textStart, textEnd);
            return new Computed(column, expression.resolve(values), textStart, textEnd, written);
        }

        @Override
        public String toString() {
            return column + " = " + expression;
        }
    }

    /**
     * An unaliased select item the shards compute from SQL rendered from the normalized text: MySQL
     * names it after the client's text ({@code -c.id}), the shards after the rendered one ({@code -
     * c.id}). {@code name} is the client's text for one execution (null until {@link #resolve}, or when
     * it cannot be found: the shards' name stays).
     *
     * @param index the item's position in the select list
     * @param textStart start of the item in the normalized text
     * @param textEnd end of the item in the normalized text
     */
    public record ItemName(int index, int textStart, int textEnd, String name) {
        public ItemName(int index, int textStart, int textEnd) {
            this(index, textStart, textEnd, null);
        }

        ItemName resolve(Values values) {
            return new ItemName(index, textStart, textEnd, ClientText.of(values.digest(), textStart, textEnd));
        }
    }

    /**
     * A column of the shard result rows: {@code index} from the start, or, when {@code fromEnd},
     * from the start of the hidden columns (the client's column count may be unknown: {@code *}).
     */
    public record Column(int index, boolean fromEnd) {
        @Override
        public String toString() {
            return fromEnd ? "hidden#" + (index + 1) : "#" + (index + 1);
        }
    }

    /**
     * One ORDER BY key; MySQL orders NULL first ascending, last descending. {@code positionSlot}
     * is the slot of an {@code ORDER BY n} whose meaning depends on the literal (an integer is a
     * column position, anything else a constant that orders nothing): {@code column} is null then
     * and {@link #resolve} decides per execution. Otherwise -1.
     */
    public record SortKey(Column column, boolean descending, int positionSlot) {
        public SortKey(Column column, boolean descending) {
            this(column, descending, -1);
        }

        static SortKey position(int slot, boolean descending) {
            return new SortKey(null, descending, slot);
        }

        @Override
        public String toString() {
            return (column == null ? "position ?" + (positionSlot + 1) : column.toString())
                    + (descending ? " DESC" : " ASC");
        }
    }

    /**
     * This merge for one execution: each {@code ORDER BY n} key becomes column n when n was an
     * integer literal (as MySQL reads it) and is dropped when it was any other constant (a string,
     * a bound parameter: MySQL orders by that constant, i.e. not at all); HAVING gets the values of
     * its slots.
     */
    public MergeSpec resolve(Values values) {
        if (orderBy.stream().allMatch(k -> k.positionSlot() < 0)
                && having == null
                && computed.isEmpty()
                && itemNames.isEmpty()) {
            return this;
        }
        List<SortKey> keys = new java.util.ArrayList<>();
        for (SortKey k : orderBy) {
            if (k.positionSlot() < 0) {
                keys.add(k);
            } else if (values.isIntegerLiteral(k.positionSlot()) && values.scalar(k.positionSlot()) instanceof Long n) {
                // n out of range leaves an index the merge rejects; the shards reject it first (1054)
                keys.add(new SortKey(
                        new Column((int) Math.max(-1, Math.min(n - 1, Integer.MAX_VALUE)), false), k.descending()));
            }
        }
        return new MergeSpec(
                keys,
                groupBy,
                aggregates,
                distinct,
                offset,
                count,
                hiddenColumns,
                sumAffectedRows,
                having == null ? null : having.resolve(values),
                computed.stream().map(c -> c.resolve(values)).toList(),
                weights,
                namesInByteOrder,
                itemNames.stream().map(n -> n.resolve(values)).toList());
    }

    /**
     * One aggregate select item: COUNT is merged as the sum of the shards' counts; SUM, MIN, MAX
     * as their sum/min/max ignoring NULLs (NULL when every shard has NULL); AVG as the sum of the
     * shards' SUMs (at {@code column}) divided by the sum of their COUNTs (at {@code countColumn}).
     * COUNT/SUM/AVG(DISTINCT x): the shards group by x as well and return x at {@code countColumn};
     * the merge counts, sums or averages the distinct non-NULL values of x per group (equal as the
     * column's collation compares them) and writes the result at {@code column}.
     */
    public record Aggregate(Function function, Column column, Column countColumn) {}

    public enum Function {
        COUNT,
        SUM,
        MIN,
        MAX,
        AVG,
        COUNT_DISTINCT,
        SUM_DISTINCT,
        AVG_DISTINCT
    }
}
