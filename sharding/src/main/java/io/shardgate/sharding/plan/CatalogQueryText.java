package io.shardgate.sharding.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The clauses of a one-table information_schema SELECT found in its normalized text, for the
 * metadata queries drivers send that Calcite cannot parse (MariaDB Connector/J's getColumns uses
 * {@code CONVERT(x, UNSIGNED INTEGER)}): the table, where to put a condition, and the ORDER BY
 * as select-list positions. Only plain shapes qualify (no GROUP BY, HAVING, LIMIT or aggregates);
 * anything else gives {@code null}, and the statement is planned as before.
 */
final class CatalogQueryText {
    private static final Pattern FROM = Pattern.compile(
            "^information_schema\\.`?([A-Za-z_]+)`?(?: (?:AS )?`?[A-Za-z_][A-Za-z0-9_]*`?)?$",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern ALIASED =
            Pattern.compile("(?:^|[ )])(?:AS )?`?([A-Za-z_][A-Za-z0-9_$]*)`?$", Pattern.CASE_INSENSITIVE);
    /** An item with an alias: the expression, then [AS] and a name; a bare (qualified) name has none. */
    private static final Pattern ALIAS_AFTER =
            Pattern.compile("(?is)^(.*?[)`\\w])\\s+(?:AS\\s+)?`?[A-Za-z_][A-Za-z0-9_$]*`?$");

    private static final Pattern ORDER_ITEM =
            Pattern.compile("^`?([A-Za-z_][A-Za-z0-9_$.]*)`?(?: (ASC|DESC))?$", Pattern.CASE_INSENSITIVE);
    private static final Pattern AGGREGATE =
            Pattern.compile("\\b(?:COUNT|SUM|MIN|MAX|AVG|GROUP_CONCAT) ?\\(", Pattern.CASE_INSENSITIVE);

    final String table;
    final boolean distinct;
    final List<MergeSpec.SortKey> orderBy;

    /** The select items without their aliases, as written. */
    private final List<String> expressions;

    private CatalogQueryText(
            String table, boolean distinct, List<MergeSpec.SortKey> orderBy, List<String> expressions) {
        this.table = table;
        this.distinct = distinct;
        this.orderBy = orderBy;
        this.expressions = expressions;
    }

    /** The clauses of {@code text}, or null when it is not a plain one-table information_schema SELECT. */
    static CatalogQueryText of(String text) {
        if (!text.regionMatches(true, 0, "SELECT ", 0, 7)) {
            return null;
        }
        Clauses c = new Clauses(text);
        int from = c.topLevel(" FROM ", 0);
        if (from < 0
                || c.topLevel(" GROUP BY ", from) >= 0
                || c.topLevel(" HAVING ", from) >= 0
                || c.topLevel(" LIMIT ", from) >= 0
                || c.topLevel(" UNION ", 0) >= 0) {
            return null;
        }
        int where = c.topLevel(" WHERE ", from);
        int order = c.topLevel(" ORDER BY ", from);
        int fromEnd = where >= 0 ? where : order >= 0 ? order : text.length();
        Matcher table = FROM.matcher(text.substring(from + 6, fromEnd).trim());
        if (!table.matches()) {
            return null;
        }
        String select = text.substring(7, from);
        boolean distinct = select.regionMatches(true, 0, "DISTINCT ", 0, 9);
        if (distinct) {
            select = select.substring(9);
        }
        if (AGGREGATE.matcher(select).find()) {
            return null;
        }
        List<String> names = new ArrayList<>();
        for (String item : c.splitTopLevel(select)) {
            Matcher alias = ALIASED.matcher(item.trim());
            names.add(alias.find() ? alias.group(1).toLowerCase(Locale.ROOT) : null);
        }
        List<MergeSpec.SortKey> keys = new ArrayList<>();
        if (order >= 0) {
            for (String item : c.splitTopLevel(text.substring(order + 10))) {
                Matcher m = ORDER_ITEM.matcher(item.trim());
                if (!m.matches()) {
                    return null;
                }
                String name =
                        m.group(1).substring(m.group(1).lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
                int index = names.indexOf(name);
                if (index < 0) {
                    return null; // a key that is not selected: leave it to the full planner
                }
                keys.add(
                        new MergeSpec.SortKey(new MergeSpec.Column(index, false), "DESC".equalsIgnoreCase(m.group(2))));
            }
        }
        List<String> expressions = new ArrayList<>();
        for (String item : c.splitTopLevel(select)) {
            expressions.add(expression(item.trim()));
        }
        return new CatalogQueryText(table.group(1).toUpperCase(Locale.ROOT), distinct, keys, expressions);
    }

    /** An item without its alias ({@code x AS y}, {@code f(x) y}); the item itself when it has none. */
    private static String expression(String item) {
        Matcher m = ALIAS_AFTER.matcher(item);
        return m.matches() ? m.group(1) : item;
    }

    /**
     * The select items the merge compares (all under DISTINCT, else the ORDER BY keys) whose
     * collation weights the shards can be asked for (no literals), by position.
     */
    private List<Integer> weighed() {
        java.util.Set<Integer> at = new java.util.TreeSet<>();
        if (distinct) {
            for (int i = 0; i < expressions.size(); i++) {
                at.add(i);
            }
        }
        orderBy.forEach(k -> at.add(k.column().index()));
        at.removeIf(i -> expressions.get(i).contains("?"));
        return List.copyOf(at);
    }

    /** {@code shardText} (this query with a condition) asking also for the weights of the compared items. */
    String withWeights(String shardText) {
        int from = new Clauses(shardText).topLevel(" FROM ", 0);
        StringBuilder added = new StringBuilder();
        for (int i : weighed()) {
            String e = expressions.get(i);
            added.append(", ")
                    .append(MergeSpec.Weights.weightOf(e))
                    .append(", ")
                    .append(MergeSpec.Weights.padOf(e));
        }
        return shardText.substring(0, from) + added + shardText.substring(from);
    }

    MergeSpec merge() {
        List<Integer> at = weighed();
        List<MergeSpec.Weights> weights = new ArrayList<>();
        for (int j = 0; j < at.size(); j++) {
            weights.add(new MergeSpec.Weights(
                    new MergeSpec.Column(at.get(j), false),
                    new MergeSpec.Column(2 * j, true),
                    new MergeSpec.Column(2 * j + 1, true)));
        }
        return new MergeSpec(
                orderBy,
                List.of(),
                List.of(),
                distinct,
                -1,
                -1,
                2 * at.size(),
                false,
                null,
                List.of(),
                weights,
                false,
                List.of());
    }

    /** Top-level positions in a normalized text: outside parentheses and back-quoted names. */
    static final class Clauses {
        private final String text;

        Clauses(String text) {
            this.text = text;
        }

        /** Offset of {@code word} at parenthesis depth 0 from {@code from}; -1 if none. */
        int topLevel(String word, int from) {
            int depth = 0;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '`') {
                    int close = text.indexOf('`', i + 1);
                    if (close < 0) {
                        return -1;
                    }
                    i = close;
                } else if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth--;
                } else if (depth == 0 && i >= from && text.regionMatches(true, i, word, 0, word.length())) {
                    return i;
                }
            }
            return -1;
        }

        /** {@code part} cut at its top-level commas. */
        List<String> splitTopLevel(String part) {
            List<String> out = new ArrayList<>();
            int depth = 0;
            int start = 0;
            for (int i = 0; i < part.length(); i++) {
                char c = part.charAt(i);
                if (c == '`') {
                    int close = part.indexOf('`', i + 1);
                    i = close < 0 ? part.length() : close;
                } else if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth--;
                } else if (c == ',' && depth == 0) {
                    out.add(part.substring(start, i));
                    start = i + 1;
                }
            }
            out.add(part.substring(start));
            return out;
        }
    }
}
