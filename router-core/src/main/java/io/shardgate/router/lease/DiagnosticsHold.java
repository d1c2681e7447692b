package io.shardgate.router.lease;

import io.netty.buffer.ByteBuf;

/**
 * Whether a backend connection must stay with the session after a statement because its server
 * session's diagnostics area (warnings, notes, the error) is not empty: SHOW WARNINGS, SHOW ERRORS,
 * {@code @@warning_count} or GET DIAGNOSTICS must read it there, and a pooled connection lent to
 * another session in between would show that session's warnings instead.
 *
 * <p>MariaDB (as MySQL) replaces the area when a statement raises a condition or uses a table; a
 * statement without tables that raises nothing ({@code SELECT 2}, {@code SET ...}) leaves the
 * earlier warnings in place, and diagnostics statements never touch it. The warning count in the
 * OK/EOF packet is the statement's own, so after such a statement only the server can say whether
 * the area is empty: the router asks it ({@link #check}), which costs a round trip only for
 * statements that follow a warning.
 *
 * <p>The question is {@code SHOW WARNINGS LIMIT 1}, a diagnostics statement: it leaves the server
 * session as the client's statements see it. {@code SHOW COUNT(*) WARNINGS} (a SELECT of
 * {@code @@warning_count}) would send a row, which advances the row number the next statement
 * without tables reports its warnings at ({@code ... at row 1} instead of {@code at row 0}, as
 * after a client's own one-row SELECT). It is asked only where SHOW WARNINGS cannot tell: a
 * connection whose session set {@code max_error_count}, which may keep the list empty (0) while
 * the count is not.
 */
public final class DiagnosticsHold {
    /**
     * A statement that empties the diagnostics area and raises nothing: it reads a table (a
     * statement without tables leaves the area alone), one every account may read.
     */
    public static final String CLEAR = "DO (SELECT 1 FROM information_schema.COLLATIONS LIMIT 0)";

    /** Reads the area's size without changing it (but see the class comment). */
    static final String COUNT = "SHOW COUNT(*) WARNINGS";

    /** Reads whether the area lists a condition, changing nothing. */
    static final String PEEK = "SHOW WARNINGS LIMIT 1";

    /**
     * The question for a connection whose session variables are {@code variables} (by lower-case
     * name, as {@link io.shardgate.router.session.SessionVariables#fragments()} has them).
     */
    static String check(java.util.Map<String, String> variables) {
        return variables.containsKey("max_error_count") ? COUNT : PEEK;
    }

    /** The number of conditions the answer to {@code check} says the area holds (at least). */
    static int conditions(String check, ByteBuf framed) {
        return check.equals(COUNT) ? count(framed) : listed(framed);
    }

    /**
     * 1 when the framed text answer to {@link #PEEK} has a row, 0 when it has none, 1 for anything
     * unexpected (the connection stays). After the column count and definitions come an EOF (unless
     * CLIENT_DEPRECATE_EOF), the rows and an EOF or OK, both 0xFE; a row starts with its Level, a
     * short string. Neither retains nor releases {@code framed}.
     */
    static int listed(ByteBuf framed) {
        return SingleValue.firstRow(framed) == SingleValue.NO_ROW ? 0 : 1;
    }

    /**
     * The count in the framed text answer to {@link #COUNT}: column count, its definition, an EOF
     * unless CLIENT_DEPRECATE_EOF, then the row (one length-encoded string of digits). An answer
     * without a row (the session's {@code sql_select_limit = 0} limits it too) counts as 1: the area
     * may hold warnings, so the connection stays. Neither retains nor releases {@code framed}.
     */
    static int count(ByteBuf framed) {
        Long count = SingleValue.unsignedLong(framed);
        return count == null ? 1 : (int) Math.min(count, Integer.MAX_VALUE);
    }

    /**
     * The hold after a statement's response: true or false, or null when the server must be asked
     * ({@link #COUNT}) because the area may still hold the warnings of a statement before.
     *
     * @param diagnosticsStatement the statement only read the diagnostics area (see {@link
     *     io.shardgate.router.session.DiagnosticsStatement})
     * @param held the connection held the session's non-empty diagnostics area before the statement
     * @param error the response ended in an ERR (the error is now in the area)
     * @param warnings the warning count of the packet that ended the response
     */
    public static Boolean after(boolean diagnosticsStatement, boolean held, boolean error, int warnings) {
        if (error || warnings > 0) {
            return Boolean.TRUE;
        }
        if (diagnosticsStatement || !held) {
            return held;
        }
        return null;
    }
}
