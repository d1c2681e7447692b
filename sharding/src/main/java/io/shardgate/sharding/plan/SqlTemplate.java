package io.shardgate.sharding.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds {@link ShardSql.Segment} lists from a span of the normalized text plus edits: each
 * {@code ?} becomes a slot and each {@code (...)} a parenthesized list slot, numbered as the digest
 * numbered them; backtick-quoted names are copied. Edits replace a span with given segments.
 */
final class SqlTemplate {
    /** Replace {@code [start, end)} of the normalized text with {@code segments}. */
    record Edit(int start, int end, List<ShardSql.Segment> segments) {}

    private final String text;

    SqlTemplate(String text) {
        this.text = text;
    }

    /** Segments of {@code [from, to)}; {@code edits} sorted, inside the span, not overlapping. */
    List<ShardSql.Segment> segments(int from, int to, List<Edit> edits) {
        List<ShardSql.Segment> out = new ArrayList<>();
        StringBuilder pending = new StringBuilder();
        int slot = slotsBefore(from);
        int e = 0;
        // an edit may also insert at the very end of the span
        for (int i = from; i < to || (e < edits.size() && edits.get(e).start() == i); ) {
            if (e < edits.size() && edits.get(e).start() == i) {
                flush(pending, out);
                out.addAll(edits.get(e).segments());
                slot += slotsIn(i, edits.get(e).end());
                i = edits.get(e++).end();
                continue;
            }
            char c = text.charAt(i);
            if (c == '`') {
                int close = closingBacktick(i);
                pending.append(text, i, close);
                i = close;
            } else if (c == '?') {
                flush(pending, out);
                out.add(new ShardSql.Slot(slot++));
                i++;
            } else if (text.startsWith("(...)", i)) {
                pending.append('(');
                flush(pending, out);
                out.add(new ShardSql.Slot(slot++));
                pending.append(')');
                i += 5;
            } else {
                pending.append(c);
                i++;
            }
        }
        flush(pending, out);
        return out;
    }

    /** How many slots start before {@code offset}. */
    int slotsBefore(int offset) {
        return slotsIn(0, offset);
    }

    private int slotsIn(int from, int to) {
        int n = 0;
        for (int i = from; i < to; ) {
            char c = text.charAt(i);
            if (c == '`') {
                i = closingBacktick(i);
            } else if (c == '?') {
                n++;
                i++;
            } else if (text.startsWith("(...)", i)) {
                n++;
                i += 5;
            } else {
                i++;
            }
        }
        return n;
    }

    private int closingBacktick(int open) {
        int i = open + 1;
        while (i < text.length()) {
            if (text.charAt(i) == '`') {
                if (i + 1 < text.length() && text.charAt(i + 1) == '`') {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return text.length();
    }

    private static void flush(StringBuilder pending, List<ShardSql.Segment> out) {
        if (pending.length() > 0) {
            out.add(new ShardSql.Text(pending.toString()));
            pending.setLength(0);
        }
    }
}
