package io.shardgate.router.session;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * MySQL's {@code CONNECTION_ID()} answered with the router's session id, the id the client got in
 * its handshake and that {@code KILL} and {@code SHOW PROCESSLIST} use: each call in the statement
 * text is replaced by that number before the statement goes to a backend, whose own thread id
 * belongs to a pooled connection other sessions use too (killing it could hit their statements).
 *
 * <p>A call is the word {@code CONNECTION_ID} followed by {@code (} and {@code )}, not qualified by
 * a schema ({@code db.connection_id()} is a stored function), and not inside a string, a quoted
 * name or a plain comment; inside an executable comment ({@code /*!...*}{@code /}) it is replaced as
 * well, since the server runs that text.
 *
 * <p>A statement for a backend gets the id as {@code CAST(0000000042 AS UNSIGNED)} ({@link
 * #forBackend}): MariaDB types that as it types CONNECTION_ID() itself, {@code int(10) unsigned}
 * (a literal's width is its text's, so the ten digits matter), in result metadata and in the columns
 * of {@code CREATE TABLE ... AS SELECT}, and unsigned arithmetic on it behaves the same; a bare
 * literal would be {@code int(2)}. The statements the router answers itself (KILL, the process
 * list) read the plain number ({@link #substitute}).
 */
public final class ConnectionIdCall {
    private static final String NAME = "CONNECTION_ID";

    private static final String LEADING_COMMENTS = "^\\s*(?:/\\*.*?\\*/\\s*)*";

    /** CREATE/ALTER of a view or stored program: its body is stored and runs later, in other sessions. */
    private static final Pattern STORED_BODY = Pattern.compile(
            LEADING_COMMENTS + "(?:CREATE|ALTER)\\s+(?:OR\\s+REPLACE\\s+)?(?:ALGORITHM\\s*=\\s*\\S+\\s+)?"
                    + "(?:DEFINER\\s*=\\s*(?:\\S+\\s*@\\s*\\S+|\\S+)\\s+)?(?:SQL\\s+SECURITY\\s+\\S+\\s+)?(?:AGGREGATE\\s+)?"
                    + "(?:VIEW|PROCEDURE|FUNCTION|TRIGGER|EVENT|PACKAGE)\\b",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

    /** Dynamic SQL given as a string: the server parses it later, the router never sees its calls. */
    private static final Pattern DYNAMIC_SQL = Pattern.compile(
            LEADING_COMMENTS + "(?:EXECUTE\\s+IMMEDIATE|PREPARE\\s+\\S+\\s+FROM)\\b.*\\bCONNECTION_ID\\s*\\(",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

    private ConnectionIdCall() {}

    /**
     * Why the router cannot answer {@code CONNECTION_ID()} in this statement as MySQL does, or null.
     * A view's or stored program's body would store the creating session's id as a constant (every
     * later caller would see it), and dynamic SQL in a string ({@code PREPARE ... FROM '...'}, {@code
     * EXECUTE IMMEDIATE '...'}) is parsed by the server, which answers with its pooled thread's id.
     * (A body created directly on the backend, or SQL built in a variable, is not seen: see
     * docs/compatibility.md.)
     */
    public static String refusal(Digest digest, String sql) {
        boolean call = digest.has(Mark.CONNECTION_ID) || digest.has(Mark.MARIADB_EXECUTABLE_COMMENT);
        if (call
                && (digest.startsWith("CREATE") || digest.startsWith("ALTER"))
                && (STORED_BODY.matcher(sql).find()
                        || STORED_BODY.matcher(digest.text()).find())) {
            return "CONNECTION_ID() in the body of a view or stored program (it would store this session's id as"
                    + " a constant; call it where the body is used, or pass it as a parameter)";
        }
        if ((digest.startsWith("PREPARE") || digest.startsWith("EXECUTE"))
                && DYNAMIC_SQL.matcher(sql).find()) {
            return "CONNECTION_ID() inside dynamic SQL (the server would answer with its pooled thread's id;"
                    + " pass CONNECTION_ID() as a parameter)";
        }
        return null;
    }

    /** {@code sql} with every {@code CONNECTION_ID()} call replaced by {@code id}; {@code sql} itself when it has none. */
    public static String substitute(Digest digest, String sql, long id) {
        return digest.has(Mark.CONNECTION_ID) || digest.has(Mark.MARIADB_EXECUTABLE_COMMENT)
                ? substitute(sql, id)
                : sql;
    }

    /**
     * {@code sql} with every {@code CONNECTION_ID()} call replaced by {@code id} typed as the server
     * types the function ({@link #typed}); {@code sql} itself when it has none.
     */
    public static String forBackend(Digest digest, String sql, long id) {
        return digest.has(Mark.CONNECTION_ID) || digest.has(Mark.MARIADB_EXECUTABLE_COMMENT)
                ? forBackend(sql, id)
                : sql;
    }

    /**
     * {@code sql} with each call replaced by the typed id, and each select-list item that contains
     * a call and certainly has no alias ({@link SelectItems#unnamed}) named as the server names it
     * from the client's text ({@code SELECT @a - connection_id()} keeps the column name {@code @a -
     * connection_id()}).
     */
    static String forBackend(String sql, long id) {
        String typed = typed(id);
        String replaced = substitute(sql, typed);
        if (replaced == sql) {
            return sql;
        }
        StringBuilder out = new StringBuilder(replaced.length() + 32);
        int copied = 0;
        for (int[] item : SelectItems.unnamed(sql)) {
            String text = sql.substring(item[0], item[1]);
            String inItem = substitute(text, typed);
            if (inItem == text || text.indexOf('`') >= 0 || text.length() > 64 || !text.equals(text.strip())) {
                continue; // no call in it, or a name the alias would not reproduce exactly
            }
            out.append(substitute(sql.substring(copied, item[0]), typed))
                    .append(inItem)
                    .append(" AS `")
                    .append(text)
                    .append('`');
            copied = item[1];
        }
        return copied == 0
                ? replaced
                : out.append(substitute(sql.substring(copied), typed)).toString();
    }

    /**
     * The expression MariaDB types as CONNECTION_ID(): {@code int(10) unsigned}, NOT NULL. A thread
     * id has at most ten digits (32 bits); a larger id (not one the router hands out) keeps its own
     * width.
     */
    static String typed(long id) {
        return "CAST(" + (id <= 9_999_999_999L ? String.format(Locale.ROOT, "%010d", id) : Long.toString(id))
                + " AS UNSIGNED)";
    }

    /** {@code sql} with each CONNECTION_ID() call replaced by {@code id}; {@code sql} itself when it has none. */
    public static String substitute(String sql, long id) {
        return substitute(sql, Long.toString(id));
    }

    private static String substitute(String sql, String id) {
        if (!Lexer.mentions(sql, NAME)) {
            return sql; // the common case: one scan for the letters, no tokens
        }
        StringBuilder out = new StringBuilder(sql.length());
        int copied = 0;
        Lexer lexer = new Lexer(sql);
        boolean qualified = false;
        while (lexer.next()) {
            if (lexer.kind == Lexer.Kind.VERSIONED_COMMENT) {
                String comment = sql.substring(lexer.start, lexer.end);
                String inner = substitute(comment.substring(2, Math.max(2, comment.length() - 2)), id);
                if (!inner.equals(comment.substring(2, Math.max(2, comment.length() - 2)))) {
                    out.append(sql, copied, lexer.start)
                            .append("/*")
                            .append(inner)
                            .append("*/");
                    copied = lexer.end;
                }
                qualified = false;
                continue;
            }
            if (lexer.is(NAME) && !qualified) {
                int callStart = lexer.start;
                int save = lexer.pos;
                if (lexer.next() && isPunct(lexer, '(') && lexer.next() && isPunct(lexer, ')')) {
                    out.append(sql, copied, callStart).append(id);
                    copied = lexer.end;
                    qualified = false;
                    continue;
                }
                lexer.pos = save; // not a call: scan on from the word's end
                qualified = false;
                continue;
            }
            qualified = isPunct(lexer, '.');
        }
        return copied == 0 ? sql : out.append(sql, copied, sql.length()).toString();
    }

    private static boolean isPunct(Lexer lexer, char c) {
        return lexer.kind == Lexer.Kind.PUNCT && lexer.text.charAt(lexer.start) == c;
    }
}
