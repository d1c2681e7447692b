package io.shardgate.router.session;

import io.shardgate.sharding.digest.StatementPrefix;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Finds a statement's session effects ({@link StatementEffects}) with one pass over its text:
 * {@code SET} assignments to replay, {@code USE}, and the constructs that pin a session to its
 * backend connection (user variables, locks, temporary tables, executable comments...).
 *
 * <p>Hand-written rather than a parser: it runs for every statement, must not allocate for the
 * common statement without effects, and has to see through MySQL's lexical rules (quotes,
 * backticks, the three comment styles) that a generic SQL parser may reject. When in doubt it pins:
 * keeping a connection costs capacity, replaying the wrong state would cost correctness.
 */
public final class StatementScanner {
    private StatementScanner() {}

    /** The effects of {@code sql}; {@link StatementEffects#NONE} for most statements. */
    public static StatementEffects scan(String sql) {
        Lexer lexer = new Lexer(sql);
        Set<PinReason> pins = null;
        boolean lastInsertId = false;
        boolean previousStatement = false;
        int firstStart = -1;
        int firstEnd = -1;
        while (lexer.next()) {
            switch (lexer.kind) {
                case VERSIONED_COMMENT -> pins = add(pins, PinReason.VERSIONED_COMMENT);
                case USER_VARIABLE -> pins = add(pins, PinReason.USER_VARIABLE);
                case WORD -> {
                    if (firstStart < 0) {
                        firstStart = lexer.start;
                        firstEnd = lexer.end;
                    }
                    if (lexer.is("GET_LOCK") || lexer.is("RELEASE_LOCK") || lexer.is("IS_USED_LOCK")) {
                        pins = add(pins, PinReason.NAMED_LOCK);
                    } else if (lexer.is("SQL_CALC_FOUND_ROWS")) {
                        pins = add(pins, PinReason.FOUND_ROWS);
                    } else if (lexer.is("FOUND_ROWS")) {
                        pins = add(pins, PinReason.FOUND_ROWS);
                        previousStatement = true;
                    } else if (lexer.is("ROW_COUNT")) {
                        previousStatement = true;
                    } else if (lexer.is("TEMPORARY")) {
                        pins = add(pins, PinReason.TEMPORARY_TABLE);
                    } else if (lexer.is("LAST_INSERT_ID")) {
                        lastInsertId = true;
                    }
                }
                default -> {}
            }
        }
        if (firstStart < 0) {
            return pins == null
                    ? StatementEffects.NONE
                    : new StatementEffects(Map.of(), null, pins, lastInsertId, previousStatement);
        }
        String schema = null;
        Map<String, String> variables = Map.of();
        boolean changesGlobals = false;
        if (word(sql, firstStart, firstEnd, "SET") && StatementPrefix.of(sql) != null) {
            // SET STATEMENT ... FOR <statement>: the variables last one statement, nothing to replay;
            // the pass above saw the inner statement's pins
        } else if (word(sql, firstStart, firstEnd, "SET")) {
            SetStatement set = SetStatement.parse(sql, firstEnd);
            variables = set.variables();
            changesGlobals = set.global();
            if (set.untracked()) {
                pins = add(pins, PinReason.UNTRACKED_SET);
            }
        } else if (word(sql, firstStart, firstEnd, "USE")) {
            schema = useTarget(sql, firstEnd);
        } else if (word(sql, firstStart, firstEnd, "LOCK")) {
            pins = add(pins, PinReason.LOCK_TABLES);
        } else if (word(sql, firstStart, firstEnd, "PREPARE")) {
            pins = add(pins, PinReason.SQL_PREPARE);
        } else if (word(sql, firstStart, firstEnd, "HANDLER")) {
            pins = add(pins, PinReason.HANDLER);
        } else if (word(sql, firstStart, firstEnd, "XA")) {
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

    private static Set<PinReason> add(Set<PinReason> pins, PinReason reason) {
        Set<PinReason> set = pins == null ? EnumSet.noneOf(PinReason.class) : pins;
        set.add(reason);
        return set;
    }

    static boolean word(String sql, int start, int end, String keyword) {
        return end - start == keyword.length() && sql.regionMatches(true, start, keyword, 0, keyword.length());
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
