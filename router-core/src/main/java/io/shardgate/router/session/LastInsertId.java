package io.shardgate.router.session;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;

/**
 * A session's LAST_INSERT_ID() while it comes from the router's key generation: the first key
 * generated for the session's last INSERT into a table with {@code key_generation}. The router
 * answers {@code SELECT LAST_INSERT_ID()} (and {@code @@identity}, {@code @@last_insert_id})
 * itself then, since the shards never saw those keys as generated, and writes the value in place of
 * {@code LAST_INSERT_ID()} in any other text statement ({@code INSERT INTO items (order_id) VALUES
 * (LAST_INSERT_ID())}), which then routes by it. An INSERT that runs on a backend unchanged and
 * reports a last insert id hands LAST_INSERT_ID() back to that backend's session (it may have
 * generated an AUTO_INCREMENT value; one given explicitly for such a column reports it too); COM_RESET_CONNECTION and COM_CHANGE_USER clear it, as MySQL does.
 * Event-loop confined.
 */
public final class LastInsertId {
    private static final SelectOfValue SELECT =
            new SelectOfValue("LAST_INSERT_ID\\s*\\(\\s*\\)|@@(?:SESSION\\.)?(?:IDENTITY|LAST_INSERT_ID)");

    /** The router's value; 0 when the backend's session holds LAST_INSERT_ID(). */
    private long generated;

    /** An INSERT generated keys: {@code first} is now LAST_INSERT_ID(). */
    public void generated(long first) {
        generated = first;
    }

    /** An INSERT ran on a backend unchanged and reported an insert id: that server session knows best now. */
    public void backendInsert() {
        generated = 0;
    }

    public void reset() {
        generated = 0;
    }

    public long value() {
        return generated;
    }

    /**
     * Whether the statement {@code digest} was made of may set LAST_INSERT_ID() in the server
     * session it runs in: an INSERT or REPLACE (also one that fails or generates no key), a LOAD
     * DATA, a CALL (a procedure's inserts keep their LAST_INSERT_ID(); its OK reports none), or a
     * statement naming LAST_INSERT_ID (LAST_INSERT_ID(expr) sets it). Stored functions and
     * triggers give the caller its own value back, so other statements leave it as it was.
     */
    public static boolean mayChange(Digest digest) {
        return digest.startsWith("INSERT")
                || digest.startsWith("REPLACE")
                || digest.startsWith("LOAD")
                || digest.startsWith("CALL")
                || digest.has(Mark.LAST_INSERT_ID);
    }

    /**
     * {@code sql} with each {@code LAST_INSERT_ID()} call (no argument; not inside quotes or
     * comments) replaced by the router's value; {@code sql} itself when the router holds no value
     * or there is none.
     */
    public String substitute(Digest digest, String sql) {
        return digest.has(Mark.LAST_INSERT_ID) ? substitute(sql) : sql;
    }

    /** {@code sql} with each {@code LAST_INSERT_ID()} call replaced, as {@link #substitute(Digest, String)}. */
    public String substitute(String sql) {
        if (generated == 0 || !containsIgnoreCase(sql, "LAST_INSERT_ID")) {
            return sql;
        }
        StringBuilder out = null;
        int copied = 0;
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"' || c == '`') {
                i = skipQuoted(sql, i, c);
            } else if (c == '#' || (c == '-' && sql.startsWith("-- ", i))) {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 ? n : eol + 1;
            } else if (c == '/' && sql.startsWith("/*", i)) {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 ? n : close + 2;
            } else if (sql.regionMatches(true, i, "LAST_INSERT_ID", 0, 14)
                    && (i == 0 || !isWordChar(sql.charAt(i - 1)))) {
                int j = skipSpaces(sql, i + 14);
                if (j < n && sql.charAt(j) == '(') {
                    int k = skipSpaces(sql, j + 1);
                    if (k < n && sql.charAt(k) == ')') {
                        out = out == null ? new StringBuilder(n) : out;
                        out.append(sql, copied, i).append(generated);
                        copied = k + 1;
                        i = k + 1;
                        continue;
                    }
                }
                i += 14;
            } else {
                i++;
            }
        }
        return out == null ? sql : out.append(sql, copied, n).toString();
    }

    private static boolean containsIgnoreCase(String text, String word) {
        for (int i = 0; i + word.length() <= text.length(); i++) {
            if (text.regionMatches(true, i, word, 0, word.length())) {
                return true;
            }
        }
        return false;
    }

    /** Offset after the quoted string or name opening at {@code open} (doubled quotes and backslash escapes). */
    private static int skipQuoted(String sql, int open, char quote) {
        int i = open + 1;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\\' && quote != '`') {
                i += 2;
            } else if (c == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return sql.length();
    }

    private static int skipSpaces(String sql, int i) {
        while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        return i;
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '.' || c == '@';
    }

    /**
     * The column name of the answer when {@code sql} only reads LAST_INSERT_ID() and the router
     * holds its value (the expression as written, or its alias); null otherwise.
     */
    public String column(String sql) {
        return generated == 0 ? null : selectColumn(sql);
    }

    /**
     * The column name of the answer when {@code sql} only reads LAST_INSERT_ID() (the expression
     * as written, or its alias), whatever the session holds; null otherwise.
     */
    public static String selectColumn(String sql) {
        return SELECT.column(sql);
    }
}
