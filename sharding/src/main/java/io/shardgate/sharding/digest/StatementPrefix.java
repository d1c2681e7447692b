package io.shardgate.sharding.digest;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * MariaDB's {@code SET STATEMENT var = value [, ...] FOR <statement>}: session variables set for one
 * statement only (MariaDB Connector/J sends {@code SET STATEMENT max_statement_time=N FOR ...} for a
 * query timeout). The router plans and routes the inner statement and sends the prefix with it to
 * every shard; {@code text} is the prefix exactly as the client wrote it, through {@code FOR} and the
 * whitespace after it, and {@code variables} the names it sets, lower case.
 */
public record StatementPrefix(String text, List<String> variables) {
    /** The only variable whose per-shard application equals MySQL's on the whole statement. */
    private static final String TIMEOUT = "max_statement_time";

    public StatementPrefix {
        variables = List.copyOf(variables);
    }

    /**
     * Why the prefix cannot run on several shards, or null: each shard would apply a variable to its
     * own part while the merge does not (sql_select_limit, div_precision_increment, sql_mode...). A
     * timeout can: the statement fails as MySQL's does when any shard's part runs out of time.
     */
    public String severalShardsRefusal() {
        List<String> others = variables.stream().filter(v -> !v.equals(TIMEOUT)).toList();
        return others.isEmpty()
                ? null
                : "SET STATEMENT " + String.join(", ", others) + " FOR a statement on several shards (each shard would"
                        + " apply it to its own rows; only max_statement_time runs on several)";
    }

    /** The prefix of {@code sql}, or null when it does not start with {@code SET STATEMENT ... FOR}. */
    public static StatementPrefix of(String sql) {
        int i = SqlGaps.skip(sql, 0);
        if (i < 0 || !word(sql, i, "SET")) {
            return null;
        }
        i = SqlGaps.skip(sql, i + 3);
        if (i < 0 || !word(sql, i, "STATEMENT")) {
            return null;
        }
        i += "STATEMENT".length();
        List<String> variables = new ArrayList<>();
        int depth = 0;
        int lastWordStart = -1;
        int lastWordEnd = -1;
        while (true) {
            i = SqlGaps.skip(sql, i);
            if (i < 0 || i >= sql.length()) {
                return null; // an executable comment among the assignments: not read here
            }
            char c = sql.charAt(i);
            if (c == '?') {
                return null; // a placeholder before FOR would shift the inner statement's parameters
            } else if (c == '\'' || c == '"' || c == '`') {
                i = closeQuote(sql, i, c);
                if (i < 0) {
                    return null;
                }
                lastWordStart = -1;
            } else if (c == '(') {
                depth++;
                i++;
            } else if (c == ')') {
                depth--;
                i++;
            } else if (c == '=' && depth == 0) {
                if (lastWordStart < 0) {
                    return null;
                }
                variables.add(sql.substring(lastWordStart, lastWordEnd).toLowerCase(Locale.ROOT));
                lastWordStart = -1;
                i++;
            } else if (isWordChar(c)) {
                int end = i;
                while (end < sql.length() && (isWordChar(sql.charAt(end)) || sql.charAt(end) == '.')) {
                    end++;
                }
                if (depth == 0 && word(sql, i, "FOR") && end - i == 3 && !variables.isEmpty()) {
                    int inner = SqlGaps.skip(sql, end);
                    return inner < 0 || inner >= sql.length()
                            ? null
                            : new StatementPrefix(sql.substring(0, inner), variables);
                }
                lastWordStart = i;
                lastWordEnd = end;
                i = end;
            } else {
                lastWordStart = -1;
                i++;
            }
        }
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '@' || c == '$';
    }

    private static boolean word(String sql, int at, String keyword) {
        int end = at + keyword.length();
        return end <= sql.length()
                && sql.regionMatches(true, at, keyword, 0, keyword.length())
                && (end == sql.length() || !isWordChar(sql.charAt(end)));
    }

    /** The offset after the quote opened at {@code i}, or -1 when it is not closed. */
    private static int closeQuote(String sql, int i, char quote) {
        for (int j = i + 1; j < sql.length(); j++) {
            char c = sql.charAt(j);
            if (c == '\\' && quote != '`') {
                j++;
            } else if (c == quote) {
                if (j + 1 < sql.length() && sql.charAt(j + 1) == quote) {
                    j++;
                } else {
                    return j + 1;
                }
            }
        }
        return -1;
    }
}
