package io.shardgate.router.session;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;

/**
 * Statements that read the diagnostics area the session's previous statement left — its warnings,
 * notes and error — without replacing it: {@code SHOW WARNINGS}, {@code SHOW ERRORS} (with {@code
 * LIMIT}), {@code SHOW COUNT(*) WARNINGS|ERRORS}, {@code GET [CURRENT] DIAGNOSTICS} and a {@code
 * SELECT} of only {@code @@warning_count} / {@code @@error_count}. Under multiplexing they must run
 * on the server session that ran the previous statement.
 */
public final class DiagnosticsStatement {
    private DiagnosticsStatement() {}

    /**
     * Whether {@code sql} (digested as {@code digest}) is one of the statements above: looked at
     * closer only when its first word or marks say it may be.
     */
    public static boolean is(Digest digest, String sql) {
        return (digest.startsWith("SHOW") || digest.startsWith("GET") || digest.has(Mark.DIAGNOSTICS_COUNT)) && is(sql);
    }

    /** Whether {@code sql} is one of the statements above. */
    public static boolean is(String sql) {
        Lexer lexer = new Lexer(sql);
        if (!lexer.next()) {
            return false;
        }
        if (lexer.is("SHOW")) {
            lexer.next();
            if (lexer.is("COUNT")) {
                if (!punct(lexer, '(') || !punct(lexer, '*') || !punct(lexer, ')')) {
                    return false;
                }
                lexer.next();
            }
            return lexer.is("WARNINGS") || lexer.is("ERRORS");
        }
        if (lexer.is("GET")) {
            lexer.next();
            if (lexer.is("CURRENT")) {
                lexer.next();
            }
            return lexer.is("DIAGNOSTICS");
        }
        if (lexer.is("SELECT")) {
            do {
                lexer.next();
                if (lexer.kind != Lexer.Kind.SYSTEM_VARIABLE || !countVariable(lexer)) {
                    return false;
                }
                lexer.next();
            } while (lexer.kind == Lexer.Kind.PUNCT && lexer.text.charAt(lexer.start) == ',');
            return lexer.kind == Lexer.Kind.END
                    || (lexer.kind == Lexer.Kind.PUNCT && lexer.text.charAt(lexer.start) == ';' && !lexer.next());
        }
        return false;
    }

    private static boolean punct(Lexer lexer, char c) {
        lexer.next();
        return lexer.kind == Lexer.Kind.PUNCT && lexer.text.charAt(lexer.start) == c;
    }

    /**
     * {@code @@warning_count} or {@code @@error_count}, bare or with the session/local scope (the
     * lexer returns {@code @@session.} as one token and the name as the next word).
     */
    private static boolean countVariable(Lexer lexer) {
        String name = lexer.text.substring(lexer.start + 2, lexer.end);
        if (name.endsWith(".")) {
            String scope = name.substring(0, name.length() - 1);
            if (!scope.equalsIgnoreCase("session") && !scope.equalsIgnoreCase("local")) {
                return false;
            }
            lexer.next();
            if (lexer.kind != Lexer.Kind.WORD) {
                return false;
            }
            name = lexer.text.substring(lexer.start, lexer.end);
        }
        return name.equalsIgnoreCase("warning_count") || name.equalsIgnoreCase("error_count");
    }
}
