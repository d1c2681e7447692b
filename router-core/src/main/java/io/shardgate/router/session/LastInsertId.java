package io.shardgate.router.session;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;

/**
 * Where a client session's LAST_INSERT_ID() is: known to the router (a value), held by one server
 * session (a lease's connection that ran a statement that may set it), or unknown.
 *
 * <p>Known: the value read off the server session that held it before its connection went back to
 * the pool (a pooled server session serves other clients next; issue 23), or the first key the
 * router generated for the session's last INSERT into a table with {@code key_generation} (the
 * shards never saw those keys as generated). The router gives it to each server session a
 * statement that may read or keep it runs in ({@code DO LAST_INSERT_ID(v)}, see {@link
 * #mayObserve}), so the server answers with its own types and names. A generated key it also
 * answers itself ({@code SELECT LAST_INSERT_ID()}, {@code @@identity}, {@code @@last_insert_id})
 * and writes in place of {@code LAST_INSERT_ID()} in any other text statement ({@code INSERT INTO
 * items (order_id) VALUES (LAST_INSERT_ID())}), which then routes by it.
 *
 * <p>Held: a statement that may set it ({@link #mayChange}) ran on a lease's connection; that
 * server session knows best. A statement that reads it elsewhere reads it from there first.
 *
 * <p>Unknown: a statement that may set it ran on several shards (without router-generated keys),
 * or the server session that held it was lost: a statement that reads it is refused until one
 * statement sets it again. COM_RESET_CONNECTION and COM_CHANGE_USER set it to 0, as MySQL does.
 * Event-loop confined.
 */
public final class LastInsertId {
    private static final SelectOfValue SELECT =
            new SelectOfValue("LAST_INSERT_ID\\s*\\(\\s*\\)|@@(?:SESSION\\.)?(?:IDENTITY|LAST_INSERT_ID)");

    /** Why a statement reading LAST_INSERT_ID() by name is refused while it is unknown. */
    public static final String UNKNOWN = "LAST_INSERT_ID() after a statement that may have set it on several shards,"
            + " or after the backend connection that held it was lost: it is not known (use the insert id of the"
            + " INSERT's OK packet, or read LAST_INSERT_ID() after a single-shard INSERT)";

    /** The known value; 0 when a server session holds LAST_INSERT_ID() or it is unknown. */
    private long known;
    /** The value came from the router's key generation (not from a server session). */
    private boolean fromKeys;
    /** The lease whose connection's server session holds the value, or null. */
    private Object holder;
    /** The holder may not have set it: a 0 read there means unknown (see {@link #heldBy(Object)}). */
    private boolean doubtful;
    /** The router's key the holder was given before its statement: read back unchanged, it is that key still. */
    private long heldKey;

    private boolean unknown;

    /** An INSERT generated keys: {@code first} is now LAST_INSERT_ID(). */
    public void generated(long first) {
        set(first);
        fromKeys = true;
    }

    private void set(long value) {
        known = value;
        fromKeys = false;
        holder = null;
        doubtful = false;
        heldKey = 0;
        unknown = false;
    }

    /**
     * A statement that may set LAST_INSERT_ID() ran on {@code lease}'s connection, given the
     * session's value first: that server session holds it now. When the value was unknown, the
     * connection was given 0 first: a 0 read there later means the statement set nothing.
     */
    public void heldBy(Object lease) {
        boolean wasUnknown = unknown;
        long key = value();
        set(0);
        doubtful = wasUnknown;
        heldKey = key;
        holder = lease;
    }

    /** The lease whose connection holds the value, or null. */
    public Object holder() {
        return holder;
    }

    /** {@code value} was read off {@code lease}'s server session, which held LAST_INSERT_ID(). */
    public void read(Object lease, long value) {
        if (holder == lease) {
            long key = heldKey;
            if (doubtful && value == 0) {
                lost();
            } else if (value != 0 && value == key) {
                generated(value); // an INSERT with explicit ids after the router's key keeps the key
            } else {
                set(value);
            }
        }
    }

    /** A statement that may set it ran on several shards, or the server session that held it is gone. */
    public void lost() {
        set(0);
        unknown = true;
    }

    /** The connection of {@code lease} is gone: if it held the value, the value is lost with it. */
    public void lostWith(Object lease) {
        if (holder == lease) {
            lost();
        }
    }

    /**
     * True when a statement reading it by name reads it off the holder first: the holder may have
     * set nothing after the value was lost (see {@link #heldBy(Object)}), or may still hold the
     * router's key (which the router then writes into the statement and routes by).
     */
    public boolean readFirst() {
        return holder != null && (doubtful || heldKey != 0);
    }

    /** True when nothing knows the session's LAST_INSERT_ID() (see {@link #lost()}). */
    public boolean unknown() {
        return unknown;
    }

    public void reset() {
        set(0);
    }

    /** The router's generated key while it is the value (answered and written in by the router), else 0. */
    public long value() {
        return fromKeys ? known : 0;
    }

    /**
     * What a statement's server session must hold as LAST_INSERT_ID() for it to run as on MySQL:
     * the router's value (0 when unknown: see {@link #heldBy(Object)}).
     */
    public long wanted() {
        return known;
    }

    /**
     * Whether the statement {@code digest} was made of may read or keep the session's
     * LAST_INSERT_ID() in the server session it runs in, so that server session must hold it first:
     * anything but a SELECT proven not to (no LAST_INSERT_ID or {@code @@identity}, no call of a
     * possible stored function, no information_schema or performance_schema, where SESSION_VARIABLES
     * shows it). A view whose definition calls a stored function that reads it is not seen.
     */
    public static boolean mayObserve(Digest digest) {
        if (digest == null
                || mayChange(digest)
                || reads(digest)
                || !digest.startsWith("SELECT")
                || digest.multiStatement()
                || digest.has(Mark.MARIADB_EXECUTABLE_COMMENT)
                || digest.prefix() != null) {
            return true;
        }
        String text = digest.text();
        return containsIgnoreCase(text, "INFORMATION_SCHEMA")
                || containsIgnoreCase(text, "PERFORMANCE_SCHEMA")
                || DiagnosticsEffect.mayCallStoredFunction(text);
    }

    /**
     * Whether the statement {@code digest} was made of may show the server session's
     * Last_query_cost ({@code SHOW [SESSION] STATUS}, which itself leaves it as it is): no statement
     * of the router's own may run before it.
     */
    public static boolean readsQueryCost(Digest digest) {
        return digest != null && digest.startsWith("SHOW") && containsIgnoreCase(digest.text(), "STATUS");
    }

    /** Whether the statement {@code digest} was made of reads LAST_INSERT_ID() by name. */
    public static boolean reads(Digest digest) {
        return digest.has(Mark.LAST_INSERT_ID) || digest.has(Mark.IDENTITY_VARIABLE);
    }

    /**
     * Whether the statement {@code digest} was made of may set LAST_INSERT_ID() in the server
     * session it runs in: an INSERT or REPLACE (also one that fails or generates no key), a LOAD
     * DATA, a CALL (a procedure's inserts keep their LAST_INSERT_ID(); its OK reports none), or a
     * statement calling LAST_INSERT_ID(expr), which sets it. Stored functions and triggers give the
     * caller its own value back, so other statements leave it as it was.
     */
    public static boolean mayChange(Digest digest) {
        return digest.startsWith("INSERT")
                || digest.startsWith("REPLACE")
                || digest.startsWith("LOAD")
                || digest.startsWith("CALL")
                || (digest.has(Mark.LAST_INSERT_ID) && setsByCall(digest.text()));
    }

    /** Whether {@code text} (a digest's: literals are {@code ?}) calls LAST_INSERT_ID with an argument. */
    static boolean setsByCall(String text) {
        int n = text.length();
        for (int i = 0; i + 14 <= n; i++) {
            if (text.regionMatches(true, i, "LAST_INSERT_ID", 0, 14) && (i == 0 || !isWordChar(text.charAt(i - 1)))) {
                int j = skipSpaces(text, i + 14);
                if (j < n && text.charAt(j) == '(') {
                    int k = skipSpaces(text, j + 1);
                    if (k < n && text.charAt(k) != ')') {
                        return true;
                    }
                }
            }
        }
        return false;
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
        long value = value();
        if (value == 0 || !containsIgnoreCase(sql, "LAST_INSERT_ID")) {
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
                        out.append(sql, copied, i).append(value);
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
        return value() == 0 ? null : selectColumn(sql);
    }

    /**
     * The column name of the answer when {@code sql} only reads LAST_INSERT_ID() (the expression
     * as written, or its alias), whatever the session holds; null otherwise.
     */
    public static String selectColumn(String sql) {
        return SELECT.column(sql);
    }
}
