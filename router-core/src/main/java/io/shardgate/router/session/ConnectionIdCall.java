package io.shardgate.router.session;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;

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
 */
public final class ConnectionIdCall {
    private static final String NAME = "CONNECTION_ID";

    private ConnectionIdCall() {}

    /** {@code sql} with every {@code CONNECTION_ID()} call replaced by {@code id}; {@code sql} itself when it has none. */
    public static String substitute(Digest digest, String sql, long id) {
        return digest.has(Mark.CONNECTION_ID) || digest.has(Mark.MARIADB_EXECUTABLE_COMMENT)
                ? substitute(sql, id)
                : sql;
    }

    /** {@code sql} with each CONNECTION_ID() call replaced by {@code id}; {@code sql} itself when it has none. */
    public static String substitute(String sql, long id) {
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
