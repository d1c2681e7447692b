package io.shardgate.router.resultcache;

import io.shardgate.cache.QualifiedTable;
import io.shardgate.sharding.digest.StatementModifiers;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which tables a statement may read, and what a statement changes, as the result cache needs them
 * for invalidation, read off the normalized digest text (literals already {@code ?}, reserved words
 * upper-cased, comments gone).
 *
 * <p>The two sides err in opposite, safe directions. A read is recorded under every name its text
 * mentions that could be a table (columns and aliases too): a superset of the tables it reads, so
 * a write to any of them finds it. A write names the tables it changes precisely where the
 * statement says so (the target of INSERT/REPLACE, the table list of UPDATE/DELETE), every name
 * for DDL, the schema for DROP/ALTER/CREATE DATABASE, and everything when the router cannot see
 * the effects (CALL, SQL-level EXECUTE, multi-statements, unknown statements). Views, triggers and
 * stored functions that write are not followed: their staleness is bounded by the TTL.
 *
 * <p>Hand-written rather than a parse: a parser runs only on a plan-cache miss, while a write's
 * tables are needed for every write; one pass over a short text does.
 */
public final class StatementTables {
    /** Reserved words that appear around table names; none can be an unquoted table name. */
    private static final Set<String> RESERVED = Set.of(
            "SELECT",
            "FROM",
            "WHERE",
            "AND",
            "OR",
            "NOT",
            "IN",
            "IS",
            "NULL",
            "AS",
            "ON",
            "JOIN",
            "INNER",
            "LEFT",
            "RIGHT",
            "OUTER",
            "CROSS",
            "NATURAL",
            "STRAIGHT_JOIN",
            "USING",
            "GROUP",
            "BY",
            "ORDER",
            "ASC",
            "DESC",
            "LIMIT",
            "HAVING",
            "DISTINCT",
            "DISTINCTROW",
            "UNION",
            "ALL",
            "CASE",
            "WHEN",
            "THEN",
            "ELSE",
            "BETWEEN",
            "LIKE",
            "EXISTS",
            "INTERVAL",
            "TRUE",
            "FALSE",
            "DIV",
            "MOD",
            "XOR",
            "REGEXP",
            "RLIKE",
            "WITH",
            "FOR",
            "UPDATE",
            "LOCK",
            "INTO",
            "VALUES",
            "SET",
            "INSERT",
            "DELETE",
            "REPLACE",
            "IGNORE",
            "LOW_PRIORITY",
            "HIGH_PRIORITY",
            "DELAYED",
            "USE",
            "FORCE",
            "INDEX",
            "KEY",
            "SQL_CALC_FOUND_ROWS",
            "SQL_SMALL_RESULT",
            "SQL_BIG_RESULT",
            "DUAL",
            "SEPARATOR",
            "CONVERT",
            "CHAR",
            "BINARY",
            "COLLATE",
            "DECIMAL",
            "INTEGER",
            "INT",
            "IF",
            "TABLE",
            "DATABASE",
            "SCHEMA",
            "CREATE",
            "ALTER",
            "DROP",
            "RENAME",
            "TO",
            "ADD",
            "COLUMN",
            "PRIMARY",
            "UNIQUE",
            "DEFAULT",
            "CONSTRAINT",
            "REFERENCES",
            "FOREIGN");

    /** First words of statements that change no table data. */
    private static final Set<String> NO_WRITE = Set.of(
            "SELECT",
            "TABLE",
            "VALUES",
            "SHOW",
            "DESCRIBE",
            "DESC",
            "EXPLAIN",
            "HELP",
            "USE",
            "SET",
            "BEGIN",
            "START",
            "COMMIT",
            "ROLLBACK",
            "SAVEPOINT",
            "RELEASE",
            "PREPARE",
            "DEALLOCATE",
            "LOCK",
            "UNLOCK",
            "HANDLER",
            "KILL",
            "FLUSH",
            "ANALYZE",
            "CHECK",
            "CHECKSUM",
            "OPTIMIZE",
            "REPAIR",
            "CACHE",
            "XA",
            "RESET",
            "PURGE",
            "GRANT",
            "REVOKE",
            "SHUTDOWN",
            "STOP",
            "CHANGE",
            "DO",
            "BINLOG",
            "INSTALL",
            "UNINSTALL",
            "SIGNAL",
            "RESIGNAL",
            "GET");

    /** Between INSERT and its table once the modifiers are blanked: {@code INSERT [INTO] t}. */
    private static final String INTO = "INTO";

    private StatementTables() {}

    /** A possibly dotted name ({@code t}, {@code s.t}, {@code `s`.`t`.c}) and what follows it. */
    private record Name(List<String> parts, String upper, boolean call) {
        /** The reserved word this is (unquoted, one part), else null. */
        String keyword() {
            return upper != null && RESERVED.contains(upper) ? upper : null;
        }
    }

    /**
     * Every table {@code text} may read, in session schema {@code schema} (null: none selected):
     * a superset, see the class note.
     */
    public static Set<QualifiedTable> read(String schema, String text) {
        Set<QualifiedTable> out = new HashSet<>();
        for (Name n : names(text)) {
            if (n.keyword() == null && !n.call()) {
                addPossibleTables(out, schema, n);
            }
        }
        return out;
    }

    /** What {@code text} (one statement, not a multi-statement) changes when it runs. */
    public static Invalidation write(String schema, String text) {
        String first = firstWord(text);
        if (first == null || NO_WRITE.contains(first)) {
            return Invalidation.NONE;
        }
        List<Name> names = names(text);
        Set<QualifiedTable> tables = new HashSet<>();
        switch (first) {
            case "INSERT", "REPLACE" -> {
                for (int i = 1; i < names.size(); i++) {
                    Name n = names.get(i);
                    if (!INTO.equals(n.upper())) {
                        addTarget(tables, schema, n);
                        break;
                    }
                }
            }
            case "UPDATE" -> addUntil(tables, schema, names, Set.of("SET"));
            case "DELETE" -> addUntil(tables, schema, names, Set.of("WHERE", "ORDER", "LIMIT"));
            case "CREATE", "ALTER", "DROP" -> {
                String what = names.size() > 1 ? names.get(1).upper() : null;
                if ("DATABASE".equals(what) || "SCHEMA".equals(what)) {
                    return database(names);
                }
                addUntil(tables, schema, names, Set.of());
            }
            case "RENAME", "TRUNCATE", "LOAD" -> addUntil(tables, schema, names, Set.of());
            case "WITH" -> {
                for (Name n : names) {
                    String k = n.keyword();
                    if ("UPDATE".equals(k) || "DELETE".equals(k) || "INSERT".equals(k) || "REPLACE".equals(k)) {
                        addUntil(tables, schema, names, Set.of());
                        break;
                    }
                }
                if (tables.isEmpty()) {
                    return Invalidation.NONE; // WITH ... SELECT
                }
            }
            default -> {
                return Invalidation.ALL; // CALL, EXECUTE, anything unknown: its effects are not visible here
            }
        }
        // a write whose tables could not be named (no schema selected, odd syntax): play safe
        return tables.isEmpty() ? Invalidation.ALL : new Invalidation(false, Set.of(), tables);
    }

    /** ROLLBACK (not ROLLBACK TO SAVEPOINT): the transaction's writes are discarded. */
    public static boolean isRollback(String text) {
        if (!"ROLLBACK".equals(firstWord(text))) {
            return false;
        }
        List<Name> names = names(text);
        for (Name n : names) {
            if ("TO".equals(n.upper())) {
                return false;
            }
        }
        return true;
    }

    private static Invalidation database(List<Name> names) {
        for (int i = 2; i < names.size(); i++) {
            Name n = names.get(i);
            if (n.upper() != null
                    && (n.upper().equals("IF")
                            || n.upper().equals("NOT")
                            || n.upper().equals("EXISTS"))) {
                continue;
            }
            return new Invalidation(false, Set.of(n.parts().get(0)), Set.of());
        }
        return Invalidation.ALL;
    }

    /** Every non-keyword name after the first word, up to the first keyword of {@code stop}. */
    private static void addUntil(Set<QualifiedTable> out, String schema, List<Name> names, Set<String> stop) {
        for (int i = 1; i < names.size(); i++) {
            Name n = names.get(i);
            String k = n.keyword();
            if (k != null && stop.contains(k)) {
                return;
            }
            if (k == null) {
                addPossibleTables(out, schema, n);
            }
        }
    }

    /** The table an INSERT names: {@code t} in the session schema or {@code s.t}. */
    private static void addTarget(Set<QualifiedTable> out, String schema, Name n) {
        List<String> p = n.parts();
        if (p.size() >= 2) {
            out.add(QualifiedTable.of(p.get(0), p.get(1)));
        } else if (schema != null) {
            out.add(QualifiedTable.of(schema, p.get(0)));
        }
    }

    /**
     * The tables a name in an expression or FROM clause may stand for: {@code x} a table of the
     * session schema; {@code a.b} table {@code a} (b its column) or table {@code b} of schema
     * {@code a}; {@code a.b.c} table {@code b} of schema {@code a}.
     */
    private static void addPossibleTables(Set<QualifiedTable> out, String schema, Name n) {
        List<String> p = n.parts();
        if (p.size() <= 2 && schema != null) {
            out.add(QualifiedTable.of(schema, p.get(0)));
        }
        if (p.size() >= 2) {
            out.add(QualifiedTable.of(p.get(0), p.get(1)));
        }
    }

    /** The statement's first word, upper-cased (leading parentheses skipped), or null. */
    public static String firstWord(String text) {
        int i = 0;
        int n = text.length();
        while (i < n && (text.charAt(i) == '(' || Character.isWhitespace(text.charAt(i)))) {
            i++;
        }
        int start = i;
        while (i < n && isWordChar(text.charAt(i))) {
            i++;
        }
        return i > start ? text.substring(start, i).toUpperCase(Locale.ROOT) : null;
    }

    /**
     * The names of {@code text} in order: words and backquoted identifiers, dotted ones joined;
     * statement modifiers ({@code UPDATE IGNORE}, {@code DELETE QUICK}...) are blanked first by the
     * planner's own {@link StatementModifiers}, so no modifier is ever read as a table.
     */
    private static List<Name> names(String normalized) {
        String text = StatementModifiers.strip(normalized).parseText();
        List<Name> out = new ArrayList<>();
        int n = text.length();
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            if (c == '@') { // a variable, not a name
                i++;
                while (i < n && (isWordChar(text.charAt(i)) || text.charAt(i) == '@')) {
                    i++;
                }
                continue;
            }
            if (c != '`' && !isWordChar(c)) {
                i++;
                continue;
            }
            List<String> parts = new ArrayList<>(2);
            boolean quoted = false;
            while (true) {
                if (i < n && text.charAt(i) == '`') {
                    StringBuilder part = new StringBuilder();
                    i++;
                    while (i < n) {
                        char q = text.charAt(i);
                        if (q == '`') {
                            if (i + 1 < n && text.charAt(i + 1) == '`') { // `` is a quoted backquote
                                part.append('`');
                                i += 2;
                                continue;
                            }
                            i++;
                            break;
                        }
                        part.append(q);
                        i++;
                    }
                    parts.add(part.toString());
                    quoted = true;
                } else {
                    int start = i;
                    while (i < n && isWordChar(text.charAt(i))) {
                        i++;
                    }
                    parts.add(text.substring(start, i));
                }
                if (i + 1 < n
                        && text.charAt(i) == '.'
                        && (text.charAt(i + 1) == '`' || isWordChar(text.charAt(i + 1)))) {
                    i++;
                    continue;
                }
                break;
            }
            boolean call = i < n && text.charAt(i) == '(';
            String upper = !quoted && parts.size() == 1 ? parts.get(0).toUpperCase(Locale.ROOT) : null;
            out.add(new Name(List.copyOf(parts), upper, call));
        }
        return out;
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }
}
