package io.shardgate.sharding.digest;

/** The gaps between a statement's tokens as MySQL's lexer reads them: whitespace and comments. */
public final class SqlGaps {
    private SqlGaps() {}

    /**
     * The offset of the next character from {@code i} that is neither whitespace nor inside a
     * comment ({@code /* *}{@code /}, {@code #}, {@code -- }); -1 at an executable comment ({@code /*!},
     * {@code /*M!}), whose content is code, which callers that only skip gaps give up on.
     */
    public static int skip(String sql, int i) {
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (sql.startsWith("/*!", i) || sql.startsWith("/*M!", i)) {
                return -1;
            } else if (sql.startsWith("/*", i)) {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 ? sql.length() : close + 2;
            } else if (c == '#' || sql.startsWith("-- ", i)) {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 ? sql.length() : eol + 1;
            } else {
                return i;
            }
        }
        return i;
    }
}
