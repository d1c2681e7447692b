package io.shardgate.sharding.plan;

import java.util.ArrayList;
import java.util.List;

/** Cuts the normalized text of a multi-row INSERT into prefix, one segment list per row, suffix. */
final class InsertSplitter {
    private InsertSplitter() {}

    /** The template, or {@code null} when the text has no top-level {@code VALUES (...)} rows. */
    static ShardSql.InsertRows split(String text) {
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
        SqlTemplate t = new SqlTemplate(text);
        List<List<ShardSql.Segment>> rowSegments = new ArrayList<>();
        for (int[] r : rows) {
            rowSegments.add(t.segments(r[0], r[1], List.of()));
        }
        return new ShardSql.InsertRows(
                t.segments(0, rows.get(0)[0], List.of()),
                rowSegments,
                t.segments(rows.get(rows.size() - 1)[1], text.length(), List.of()));
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
