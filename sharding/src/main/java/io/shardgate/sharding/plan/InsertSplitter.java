package io.shardgate.sharding.plan;

import java.util.ArrayList;
import java.util.List;

/** Cuts the normalized text of a multi-row INSERT into prefix, one segment list per row, suffix. */
final class InsertSplitter {
    private InsertSplitter() {}

    /** The template, or {@code null} when the text has no top-level {@code VALUES (...)} rows. */
    static ShardSql.InsertRows split(String text) {
        return split(text, null, null);
    }

    /**
     * The template of an INSERT into a table whose keys the router generates, or {@code null}.
     *
     * @param addedKeyColumn the key column when the column list lacks it: appended to the list, and
     *     each row gets its generated key as the last value; else null
     * @param keyEdits when the key column is listed: per row, the edit of its key value (a generated
     *     key for NULL / DEFAULT, a {@link ShardSql.KeySlot} for a literal or placeholder); else null
     */
    static ShardSql.InsertRows split(String text, String addedKeyColumn, List<SqlTemplate.Edit> keyEdits) {
        int values = topLevel(text, " VALUES ");
        int keyword = 8;
        if (values < 0) {
            values = topLevel(text, " VALUE ");
            keyword = 7;
        }
        if (values < 0) {
            return null;
        }
        int i = values + keyword;
        List<int[]> rows = new ArrayList<>();
        while (i < text.length() && text.charAt(i) == '(') {
            int end = closing(text, i);
            if (end < 0) {
                return null;
            }
            rows.add(new int[] {i, end});
            i = end;
            if (text.startsWith(", (", i)) {
                i += 2;
            } else {
                break;
            }
        }
        if (rows.isEmpty()) {
            return null;
        }
        boolean generates = addedKeyColumn != null || keyEdits != null;
        if (keyEdits != null && keyEdits.size() != rows.size()) {
            return null;
        }
        SqlTemplate t = new SqlTemplate(text);
        List<List<ShardSql.Segment>> rowSegments = new ArrayList<>();
        for (int r = 0; r < rows.size(); r++) {
            int[] span = rows.get(r);
            List<SqlTemplate.Edit> edits = List.of();
            if (addedKeyColumn != null) {
                // before the row's closing parenthesis: ", <key>"
                edits = List.of(new SqlTemplate.Edit(
                        span[1] - 1, span[1] - 1, List.of(new ShardSql.Text(", "), new ShardSql.GeneratedKey(r))));
            } else if (keyEdits != null) {
                edits = List.of(keyEdits.get(r));
            }
            rowSegments.add(t.segments(span[0], span[1], edits));
        }
        List<SqlTemplate.Edit> prefixEdits = List.of();
        if (addedKeyColumn != null) {
            int close = values - 1; // "... (a, b) VALUES": the column list ends right before
            if (close < 0 || text.charAt(close) != ')') {
                return null;
            }
            prefixEdits = List.of(new SqlTemplate.Edit(
                    close, close, List.of(new ShardSql.Text(", `" + addedKeyColumn.replace("`", "``") + "`"))));
        }
        return new ShardSql.InsertRows(
                t.segments(0, rows.get(0)[0], prefixEdits),
                rowSegments,
                t.segments(rows.get(rows.size() - 1)[1], text.length(), List.of()),
                generates);
    }

    private static int topLevel(String text, String word) {
        int depth = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '`') {
                i = text.indexOf('`', i + 1);
                if (i < 0) {
                    return -1;
                }
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (depth == 0 && text.startsWith(word, i)) {
                return i;
            }
        }
        return -1;
    }

    /** Offset after the parenthesis closing the one at {@code open}. */
    private static int closing(String text, int open) {
        int depth = 0;
        for (int i = open; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '`') {
                i = text.indexOf('`', i + 1);
                if (i < 0) {
                    return -1;
                }
            } else if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i + 1;
            }
        }
        return -1;
    }
}
