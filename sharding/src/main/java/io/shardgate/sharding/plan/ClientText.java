package io.shardgate.sharding.plan;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Literal;
import io.shardgate.sharding.digest.SqlGaps;
import java.util.List;

/**
 * The client's own text of a span of a digest's normalized text: MySQL names an unaliased select
 * item after its source text exactly as written ({@code SUM(k)/COUNT(*)}), while shard SQL is
 * rendered from the normalized text ({@code SUM(k) / COUNT(*)}). Walks both texts side by side:
 * whitespace and comments of the client's SQL are skipped, each {@code ?} of the normalized text
 * consumes one literal of the client's SQL, other characters must match ignoring case. Hand-written
 * because the digest keeps no offset map (it would cost every statement an array); used once per
 * scattered execution that computes an item, never on the single-shard path.
 */
final class ClientText {
    private ClientText() {}

    /** The client's text of {@code normalized[start, end)}, or null when the walk cannot map it. */
    static String of(Digest digest, int start, int end) {
        String sql = digest.sql();
        String text = digest.text();
        List<Literal> literals = digest.literals();
        int i = 0;
        int k = 0;
        int from = -1;
        int to = -1;
        for (int j = 0; j < end; j++) {
            char c = text.charAt(j);
            if (c == ' ') {
                continue;
            }
            i = SqlGaps.skip(sql, i);
            if (i < 0 || i >= sql.length()) {
                return null;
            }
            if (j >= start && from < 0) {
                from = i;
            }
            if (c == '?') {
                if (k >= literals.size() || literals.get(k).start() != i) {
                    return null;
                }
                i = literals.get(k++).end();
            } else if (Character.toUpperCase(c) == Character.toUpperCase(sql.charAt(i))) {
                i++;
            } else {
                return null;
            }
            if (j >= start) {
                to = i;
            }
        }
        return from < 0 || to < from ? null : sql.substring(from, to);
    }
}
