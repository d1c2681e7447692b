package io.shardgate.router.session;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A statement's session effects ({@link StatementEffects}): {@code SET} assignments to replay,
 * {@code USE}, and the constructs that pin a session to its backend connection (user variables,
 * locks, temporary tables, MariaDB executable comments...).
 *
 * <p>Read off the statement's {@link Digest}: its one pass over the client's text noted every
 * construct that pins ({@link Mark}), so the common statement costs no scan here and allocates
 * nothing. Only SET and USE are read again, by a hand-written lexer that sees through MySQL's
 * lexical rules (quotes, backticks, the three comment styles) a generic SQL parser may reject. When
 * in doubt it pins: keeping a connection costs capacity, replaying the wrong state would cost
 * correctness.
 */
public final class StatementScanner {
    private StatementScanner() {}

    /** The effects of {@code sql}, digested here: for callers that hold no digest of it. */
    public static StatementEffects scan(String sql) {
        return scan(Digest.of(sql));
    }

    /**
     * The effects of the statement {@code digest} was made of; {@link StatementEffects#NONE} for
     * most statements. What pins comes from the digest's {@link Mark}s and first word; only SET and
     * USE, whose values are not in the digest, read the client's text again.
     */
    public static StatementEffects scan(Digest digest) {
        Set<PinReason> pins = null;
        boolean lastInsertId = false;
        boolean previousStatement = false;
        if (!digest.unmarked()) {
            pins = marked(digest, Mark.MARIADB_EXECUTABLE_COMMENT, PinReason.VERSIONED_COMMENT, pins);
            pins = marked(digest, Mark.USER_VARIABLE, PinReason.USER_VARIABLE, pins);
            pins = marked(digest, Mark.NAMED_LOCK, PinReason.NAMED_LOCK, pins);
            pins = marked(digest, Mark.SQL_CALC_FOUND_ROWS, PinReason.FOUND_ROWS, pins);
            pins = marked(digest, Mark.FOUND_ROWS, PinReason.FOUND_ROWS, pins);
            pins = marked(digest, Mark.TEMPORARY, PinReason.TEMPORARY_TABLE, pins);
            previousStatement = digest.has(Mark.FOUND_ROWS) || digest.has(Mark.ROW_COUNT);
            lastInsertId = digest.has(Mark.LAST_INSERT_ID);
        }
        String schema = null;
        Map<String, String> variables = Map.of();
        boolean changesGlobals = false;
        if (digest.prefix() != null) {
            // SET STATEMENT ... FOR <statement>: the variables last one statement, nothing to replay;
            // the marks above are the inner statement's and the prefix's
        } else if (digest.startsWith("SET")) {
            SetStatement set = SetStatement.parse(digest.sql(), firstWordEnd(digest.sql()));
            variables = set.variables();
            changesGlobals = set.global();
            if (set.untracked()) {
                pins = add(pins, PinReason.UNTRACKED_SET);
            }
        } else if (digest.startsWith("USE")) {
            schema = useTarget(digest.sql(), firstWordEnd(digest.sql()));
        } else if (digest.startsWith("LOCK")) {
            pins = add(pins, PinReason.LOCK_TABLES);
        } else if (digest.startsWith("PREPARE")) {
            pins = add(pins, PinReason.SQL_PREPARE);
        } else if (digest.startsWith("HANDLER")) {
            pins = add(pins, PinReason.HANDLER);
        } else if (digest.startsWith("XA")) {
            pins = add(pins, PinReason.XA);
        }
        if (pins == null
                && variables.isEmpty()
                && schema == null
                && !lastInsertId
                && !previousStatement
                && !changesGlobals) {
            return StatementEffects.NONE;
        }
        return new StatementEffects(
                variables, schema, pins == null ? Set.of() : pins, lastInsertId, previousStatement, changesGlobals);
    }

    private static Set<PinReason> marked(Digest digest, Mark mark, PinReason reason, Set<PinReason> pins) {
        return digest.has(mark) ? add(pins, reason) : pins;
    }

    /** Where the first word of {@code sql} ends (comments and executable-comment markers skipped). */
    private static int firstWordEnd(String sql) {
        Lexer lexer = new Lexer(sql);
        while (lexer.next()) {
            if (lexer.kind == Lexer.Kind.WORD) {
                return lexer.end;
            }
        }
        return sql.length();
    }

    private static Set<PinReason> add(Set<PinReason> pins, PinReason reason) {
        Set<PinReason> set = pins == null ? EnumSet.noneOf(PinReason.class) : pins;
        set.add(reason);
        return set;
    }

    /** The schema named by {@code USE name}, unquoted; null when the statement is malformed. */
    private static String useTarget(String sql, int from) {
        Lexer lexer = new Lexer(sql);
        lexer.pos = from;
        if (!lexer.next()) {
            return null;
        }
        if (lexer.kind == Lexer.Kind.QUOTED_IDENTIFIER) {
            return sql.substring(lexer.start + 1, lexer.end - 1).replace("``", "`");
        }
        return lexer.kind == Lexer.Kind.WORD ? sql.substring(lexer.start, lexer.end) : null;
    }

    /**
     * The assignments of a {@code SET} statement, as replayable fragments keyed by variable; {@code
     * global}: it assigns a GLOBAL (or MySQL's PERSIST / PERSIST_ONLY) variable.
     */
    record SetStatement(Map<String, String> variables, boolean untracked, boolean global) {
        private static final java.util.regex.Pattern SYSTEM_VARIABLE_COPY = java.util.regex.Pattern.compile(
                "^\\s*:?=\\s*@@(?:session\\.|local\\.)?([A-Za-z_0-9]+)\\s*$", java.util.regex.Pattern.CASE_INSENSITIVE);

        static SetStatement parse(String sql, int from) {
            Map<String, String> variables = new LinkedHashMap<>();
            boolean untracked = false;
            boolean global = false;
            Lexer lexer = new Lexer(sql);
            lexer.pos = from;
            while (true) {
                int assignmentStart = skipSpace(sql, lexer.pos);
                if (!lexer.next()) {
                    break;
                }
                if (lexer.kind == Lexer.Kind.USER_VARIABLE) {
                    untracked = true; // pinned by the caller for the user variable
                    String copy = systemVariableCopy(sql, lexer);
                    if (copy != null) {
                        variables.put(copy.substring(0, copy.indexOf(' ')), copy);
                    }
                    if (lexer.kind == Lexer.Kind.END) {
                        break;
                    }
                    continue;
                }
                String first = lexer.kind == Lexer.Kind.WORD || lexer.kind == Lexer.Kind.SYSTEM_VARIABLE
                        ? sql.substring(lexer.start, lexer.end).toLowerCase(Locale.ROOT)
                        : null;
                if (first == null) {
                    untracked = true;
                    break;
                }
                switch (first) {
                    case "global", "@@global.", "persist", "@@persist.", "persist_only", "@@persist_only." -> {
                        // server-wide: nothing to replay, but pooled connections hold the old value
                        global = true;
                        skipToComma(lexer);
                    }
                    case "names" -> {
                        int end = skipToComma(lexer);
                        for (String k : new String[] {
                            "character set",
                            "character_set_client",
                            "character_set_connection",
                            "character_set_results",
                            "collation_connection"
                        }) {
                            variables.remove(k);
                        }
                        put(
                                variables,
                                "names",
                                sql.substring(assignmentStart, end).trim());
                    }
                    case "character", "charset" -> {
                        int end = skipToComma(lexer);
                        for (String k : new String[] {
                            "names",
                            "character_set_client",
                            "character_set_results",
                            "character_set_connection",
                            "collation_connection"
                        }) {
                            variables.remove(k);
                        }
                        put(
                                variables,
                                "character set",
                                sql.substring(assignmentStart, end).trim());
                    }
                    case "transaction", "password", "role", "default", "statement" -> {
                        // next-transaction characteristics, credentials, roles, SET STATEMENT ... FOR:
                        // not session state we can carry over
                        return new SetStatement(variables, true, global);
                    }
                    default -> {
                        String name = first;
                        if (first.equals("session")
                                || first.equals("local")
                                || first.equals("@@session.")
                                || first.equals("@@local.")) {
                            if (!lexer.next() || lexer.kind != Lexer.Kind.WORD) {
                                return new SetStatement(variables, true, global);
                            }
                            name = sql.substring(lexer.start, lexer.end).toLowerCase(Locale.ROOT);
                            if (name.equals("transaction")) {
                                // SET SESSION TRANSACTION ...: replayed as its own statement
                                int end = skipToComma(lexer);
                                variables.put(
                                        "session transaction",
                                        sql.substring(assignmentStart, end).trim());
                                continue;
                            }
                        } else if (first.startsWith("@@")) {
                            name = first.substring(2);
                        }
                        if (!lexer.next() || !(lexer.kind == Lexer.Kind.OPERATOR)) {
                            return new SetStatement(variables, true, global);
                        }
                        int valueStart = lexer.end;
                        int end = skipToComma(lexer);
                        String value = sql.substring(valueStart, end).trim();
                        if (value.isEmpty()) {
                            return new SetStatement(variables, true, global);
                        }
                        put(variables, name, name + " = " + value);
                    }
                }
                if (lexer.kind == Lexer.Kind.END) {
                    break;
                }
            }
            return new SetStatement(variables, untracked, global);
        }

        /**
         * {@code @u = @@name} (what mysqldump writes to save a setting it restores later with
         * {@code SET name = @u}): {@code "@u = @@name"} with both names in lower case, for {@link
         * SessionVariables} to resolve; null for any other user variable assignment. Leaves the
         * lexer past the assignment.
         */
        private static String systemVariableCopy(String sql, Lexer lexer) {
            String user = sql.substring(lexer.start, lexer.end).toLowerCase(Locale.ROOT);
            int from = lexer.end;
            int to = skipToComma(lexer);
            java.util.regex.Matcher copy = SYSTEM_VARIABLE_COPY.matcher(sql.substring(from, Math.max(from, to)));
            return copy.matches() ? user + " = @@" + copy.group(1).toLowerCase(Locale.ROOT) : null;
        }

        /** Later assignments of a variable replace earlier ones and move to the end (order matters). */
        private static void put(Map<String, String> variables, String key, String fragment) {
            variables.remove(key);
            variables.put(key, fragment);
        }

        /** Advances past the current assignment; returns the index where it ends (a top-level comma or the end). */
        private static int skipToComma(Lexer lexer) {
            int depth = 0;
            // the end of the assignment's last token: not a comment (an executable one's "*/") after it
            int last = lexer.end;
            while (lexer.next()) {
                if (lexer.kind == Lexer.Kind.PUNCT) {
                    char c = lexer.text.charAt(lexer.start);
                    if (c == '(') {
                        depth++;
                    } else if (c == ')') {
                        depth--;
                    } else if (c == ',' && depth == 0) {
                        return last;
                    } else if (c == ';' && depth == 0) {
                        lexer.kind = Lexer.Kind.END;
                        return last;
                    }
                }
                last = lexer.end;
            }
            lexer.kind = Lexer.Kind.END;
            return last;
        }

        private static int skipSpace(String sql, int i) {
            while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) {
                i++;
            }
            return i;
        }
    }
}
