package io.shardgate.router.session;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What a statement does to its session's diagnostics area (the list SHOW WARNINGS reads) when it
 * raises no condition, as far as its text proves it. MariaDB empties the area when a statement uses
 * a table (its own table list: a FROM with a table, a derived table or a CTE, the target of
 * INSERT/UPDATE/DELETE) and replaces it when the statement raises a condition; a statement without
 * tables that raises nothing ({@code SELECT 1}, {@code SET}, {@code USE}, {@code COMMIT}) leaves
 * the earlier warnings in place, and SHOW WARNINGS still lists them. A stored function called by a
 * statement without tables may empty the area without raising anything visible (a handled error, a
 * SIGNALed warning), and SHOW, CALL or a sequence read do or do not by their kind: all of those
 * are {@link #UNSURE}. Checked against MariaDB by {@code DiagnosticsAreaRulesIT}.
 */
public enum DiagnosticsEffect {
    /** Only reads the area ({@link DiagnosticsStatement}): it stays as it was. */
    READS,
    /** Certainly uses a table: the area holds this statement's conditions only, none when it raised none. */
    CLEARS,
    /** Certainly uses no table and calls nothing that may: the area stays unless it raises a condition. */
    KEEPS,
    /** Not known: whether the area stays after it raised nothing is not proven. */
    UNSURE;

    /** Statements without tables (when their expressions have none) whose first word says so. */
    private static final Set<String> EXPRESSION_STATEMENTS = Set.of("SELECT", "VALUES", "DO", "SET", "WITH", "(");

    /** Session and transaction statements without tables or expressions (checked against MariaDB). */
    private static final Set<String> PLAIN_STATEMENTS =
            Set.of("USE", "BEGIN", "START", "COMMIT", "ROLLBACK", "SAVEPOINT");

    /** Statements that always name the table they change. */
    private static final Set<String> TABLE_STATEMENTS = Set.of("INSERT", "REPLACE", "UPDATE", "DELETE");

    /** Functions whose arguments hold a FROM that is no table clause ({@code EXTRACT(YEAR FROM d)}). */
    private static final Set<String> FROM_FUNCTIONS =
            Set.of("EXTRACT", "TRIM", "SUBSTRING", "SUBSTR", "MID", "OVERLAY");

    /** Words of SET that reach beyond the session's variables (accounts, roles, global state). */
    private static final Set<String> SET_BEYOND_SESSION =
            Set.of("PASSWORD", "ROLE", "GLOBAL", "PERSIST", "PERSIST_ONLY", "STATEMENT");

    /** The effect of the statement {@code digest} was made of (not a diagnostics statement). */
    public static DiagnosticsEffect of(Digest digest) {
        if (digest.multiStatement() || digest.has(Mark.MARIADB_EXECUTABLE_COMMENT) || digest.prefix() != null) {
            return UNSURE; // several statements, code the digest did not read, SET STATEMENT ... FOR
        }
        return ofText(digest.text());
    }

    /** {@link #of} on a digest's normalized text (literals are {@code ?}, comments gone). */
    static DiagnosticsEffect ofText(String text) {
        List<Token> tokens = tokens(text);
        if (tokens.isEmpty()) {
            return UNSURE;
        }
        String first = tokens.get(0).upper();
        if (TABLE_STATEMENTS.contains(first)) {
            return CLEARS;
        }
        if (PLAIN_STATEMENTS.contains(first)) {
            return plain(tokens) ? KEEPS : UNSURE;
        }
        if (!EXPRESSION_STATEMENTS.contains(first)) {
            return UNSURE;
        }
        return expressions(tokens, first);
    }

    /** USE db, BEGIN [WORK], START TRANSACTION ..., COMMIT ..., ROLLBACK [WORK], SAVEPOINT x: words only. */
    private static boolean plain(List<Token> tokens) {
        for (Token t : tokens) {
            if (t.kind() != Lexer.Kind.WORD && t.kind() != Lexer.Kind.QUOTED_IDENTIFIER) {
                return false;
            }
        }
        String first = tokens.get(0).upper();
        if (first.equals("BEGIN")) { // not BEGIN NOT ATOMIC, a compound statement
            return tokens.size() == 1
                    || (tokens.size() == 2 && tokens.get(1).upper().equals("WORK"));
        }
        if (first.equals("ROLLBACK")) { // not ROLLBACK TO SAVEPOINT: not checked against MariaDB
            return tokens.stream().noneMatch(t -> t.upper().equals("TO"));
        }
        return !first.equals("START")
                || (tokens.size() > 1 && tokens.get(1).upper().equals("TRANSACTION"));
    }

    /**
     * SELECT, VALUES, DO, SET, WITH: CLEARS when a FROM names a table (or a derived table), KEEPS
     * when nothing in it may touch a table, else UNSURE. A FROM counts where it opens a table
     * clause: not inside the arguments of {@link #FROM_FUNCTIONS}.
     */
    private static DiagnosticsEffect expressions(List<Token> tokens, String first) {
        boolean set = first.equals("SET");
        boolean unsure = first.equals("WITH"); // a CTE nothing reads is no table: not worth proving
        Deque<Boolean> functionFrom = new ArrayDeque<>(); // per open parenthesis: FROM there is an argument
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            Token next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
            if (t.is('(')) {
                Token before = i > 0 ? tokens.get(i - 1) : null;
                boolean query = next != null
                        && (next.upper().equals("SELECT") || next.upper().equals("WITH"));
                functionFrom.push(before != null && !query && FROM_FUNCTIONS.contains(before.upper()));
                if (before != null && !query && mayCallStoredFunction(tokens, i - 1)) {
                    unsure = true;
                }
            } else if (t.is(')')) {
                if (functionFrom.isEmpty()) {
                    return UNSURE;
                }
                functionFrom.pop();
            } else if (t.upper().equals("FROM") && t.kind() == Lexer.Kind.WORD) {
                if (functionFrom.isEmpty() || !functionFrom.peek()) {
                    if (next == null) {
                        return UNSURE;
                    }
                    if (next.is('(')
                            || next.kind() == Lexer.Kind.QUOTED_IDENTIFIER
                            || (next.kind() == Lexer.Kind.WORD
                                    && !next.upper().equals("DUAL")
                                    && !Digest.isReservedWord(next.upper()))) {
                        return CLEARS; // a table, a view, a sequence, a CTE or a derived table
                    }
                    if (!next.upper().equals("DUAL")) {
                        unsure = true;
                    }
                }
            } else if ((t.upper().equals("NEXT") || t.upper().equals("PREVIOUS"))
                    && next != null
                    && next.upper().equals("VALUE")) {
                unsure = true; // NEXT VALUE FOR a sequence: a table
            } else if (set && (SET_BEYOND_SESSION.contains(t.upper()) || globalVariable(t))) {
                unsure = true;
            }
        }
        return unsure || !functionFrom.isEmpty() ? UNSURE : KEEPS;
    }

    /** Whether the normalized statement text {@code text} may call a stored function (see below). */
    static boolean mayCallStoredFunction(String text) {
        List<Token> tokens = tokens(text);
        for (int i = 1; i < tokens.size(); i++) {
            if (tokens.get(i).is('(') && mayCallStoredFunction(tokens, i - 1)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the name at {@code at}, followed by {@code (}, may be a stored function (which may
     * use tables or empty the diagnostics area unseen): quoted, qualified, or neither a reserved
     * word nor a {@link BuiltinFunctions built-in}.
     */
    private static boolean mayCallStoredFunction(List<Token> tokens, int at) {
        Token name = tokens.get(at);
        if (name.kind() == Lexer.Kind.QUOTED_IDENTIFIER) {
            return true;
        }
        if (name.kind() != Lexer.Kind.WORD) {
            return false; // an operator or punctuation before a parenthesis
        }
        boolean qualified = at > 0 && tokens.get(at - 1).is('.');
        return qualified || !(Digest.isReservedWord(name.upper()) || BuiltinFunctions.contains(name.upper()));
    }

    private static boolean globalVariable(Token t) {
        if (t.kind() != Lexer.Kind.SYSTEM_VARIABLE) {
            return false;
        }
        return t.upper().startsWith("@@GLOBAL.") || t.upper().startsWith("@@PERSIST");
    }

    /** One token of the normalized text: its kind and its text, upper-cased. */
    private record Token(Lexer.Kind kind, String upper) {
        boolean is(char punct) {
            return kind == Lexer.Kind.PUNCT && upper.length() == 1 && upper.charAt(0) == punct;
        }
    }

    private static List<Token> tokens(String text) {
        Lexer lexer = new Lexer(text);
        List<Token> out = new ArrayList<>();
        while (lexer.next()) {
            out.add(new Token(lexer.kind, text.substring(lexer.start, lexer.end).toUpperCase(Locale.ROOT)));
        }
        return out;
    }
}
