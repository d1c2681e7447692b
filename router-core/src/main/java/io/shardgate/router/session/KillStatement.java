package io.shardgate.router.session;

import io.shardgate.sharding.digest.Digest;

/**
 * {@code KILL [HARD | SOFT] [CONNECTION | QUERY] id} as MySQL and MariaDB read it, where id is a
 * router session id (the handshake's, CONNECTION_ID()'s, PROCESSLIST's Id). Forms the router does
 * not carry out ({@code KILL USER name}, {@code KILL QUERY ID query_id}, an id that is an
 * expression rather than a number) parse to a refusal naming the form.
 *
 * @param query true for KILL QUERY (the statement in flight), false for KILL [CONNECTION]
 * @param id the session to kill
 * @param refusal why the router refuses this KILL (for ER_NOT_SUPPORTED_YET), or null
 */
public record KillStatement(boolean query, long id, String refusal) {

    /** The KILL in {@code sql}, or null when {@code sql} is not a KILL statement. */
    public static KillStatement parse(Digest digest, String sql) {
        return digest.startsWith("KILL") ? parse(sql) : null;
    }

    /** The KILL statement {@code sql} is, or null. */
    public static KillStatement parse(String sql) {
        if (!Lexer.mentions(sql, "KILL")) {
            return null; // nearly every statement: no tokenising
        }
        Lexer lexer = new Lexer(sql);
        if (!lexer.next()) {
            return null;
        }
        if (!lexer.is("KILL")) {
            return hidden(lexer);
        }
        lexer.next();
        if (lexer.is("HARD") || lexer.is("SOFT")) {
            lexer.next(); // MariaDB: whether to interrupt critical sections; the backend decides
        }
        boolean query = false;
        if (lexer.is("QUERY")) {
            query = true;
            lexer.next();
            if (lexer.is("ID")) {
                return refused(
                        true,
                        "KILL QUERY ID through the router (KILL QUERY <connection id> interrupts a session's statement)");
            }
        } else if (lexer.is("CONNECTION")) {
            lexer.next();
        } else if (lexer.is("USER")) {
            return refused(false, "KILL USER through the router (KILL <connection id> per session)");
        }
        int parens = 0;
        while (isPunct(lexer, '(')) {
            parens++;
            lexer.next();
        }
        if (lexer.kind != Lexer.Kind.NUMBER) {
            return refused(query, "KILL with an id other than a number");
        }
        long id;
        try {
            id = Long.parseLong(sql.substring(lexer.start, lexer.end));
        } catch (NumberFormatException e) {
            return refused(query, "KILL with an id other than a number");
        }
        lexer.next();
        for (; parens > 0; parens--) {
            if (!isPunct(lexer, ')')) {
                return refused(query, "KILL with an id other than a number");
            }
            lexer.next();
        }
        if (isPunct(lexer, ';')) {
            lexer.next();
        }
        if (lexer.kind != Lexer.Kind.END) {
            return refused(query, "KILL with an id other than a number");
        }
        return new KillStatement(query, id, null);
    }

    /**
     * A KILL where a backend would run it but the router would not see it first: inside an
     * executable MariaDB comment ({@code /*M!} ...) opening the statement, or after a ';' (a
     * multi-statement). Refused; null
     * when there is none (KILL as a name or in a string).
     */
    private static KillStatement hidden(Lexer lexer) {
        if (lexer.kind == Lexer.Kind.VERSIONED_COMMENT
                && Lexer.mentions(lexer.text.substring(lexer.start, lexer.end), "KILL")) {
            return refused(false, "KILL inside an executable comment");
        }
        boolean statementStart = false;
        while (lexer.next()) {
            if (statementStart
                    && (lexer.is("KILL")
                            || lexer.kind == Lexer.Kind.VERSIONED_COMMENT
                                    && Lexer.mentions(lexer.text.substring(lexer.start, lexer.end), "KILL"))) {
                return refused(false, "KILL in a multi-statement");
            }
            statementStart = isPunct(lexer, ';');
        }
        return null;
    }

    private static KillStatement refused(boolean query, String why) {
        return new KillStatement(query, 0, why);
    }

    private static boolean isPunct(Lexer lexer, char c) {
        return lexer.kind == Lexer.Kind.PUNCT && lexer.text.charAt(lexer.start) == c;
    }
}
