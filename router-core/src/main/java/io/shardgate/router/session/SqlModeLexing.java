package io.shardgate.router.session;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a session's {@code sql_mode} changes in how MySQL reads a statement's text, where the router
 * reads it otherwise: the digest and the planner read {@code "..."} as a string, a backslash in a
 * string as an escape and {@code NOT} with its usual precedence. Under {@code ANSI_QUOTES} (also part
 * of ANSI, DB2, MAXDB, MSSQL, ORACLE, POSTGRESQL) {@code "id"} is a column, so a statement could be
 * routed or merged by a constant ({@code ORDER BY "total"} merged unsorted, {@code WHERE id = "id"}
 * sent to one shard); under {@code NO_BACKSLASH_ESCAPES} a string ends at a quote the router takes
 * for an escaped one; under {@code HIGH_NOT_PRECEDENCE} (MYSQL323, MYSQL40) {@code NOT a BETWEEN b
 * AND c} groups differently; {@code ORACLE} changes much more of the grammar.
 *
 * <p>The router knows the session's mode when the client set it to a literal ({@code SET sql_mode =
 * 'ANSI_QUOTES,...'}, or {@code DEFAULT}); the servers' global default is taken to read text as the
 * router does (MariaDB's and MySQL's defaults do). When the mode may read a statement's text
 * otherwise and the text holds what it would read otherwise, a router whose rules could send the
 * statement to more than one place refuses it (ERROR 1235) instead of guessing. A router with one
 * hostgroup and no query rules sends every statement whole to that one place: nothing is refused.
 */
public final class SqlModeLexing {
    /** A way the session's mode may read text otherwise than the router. */
    public enum Hazard {
        DOUBLE_QUOTED_NAMES("\"...\" as an identifier (sql_mode ANSI_QUOTES: write identifiers in backticks)"),
        LITERAL_BACKSLASHES("a backslash in a string read literally (sql_mode NO_BACKSLASH_ESCAPES)"),
        HIGH_NOT("NOT with high precedence (sql_mode HIGH_NOT_PRECEDENCE)"),
        ORACLE_GRAMMAR("the ORACLE sql_mode's grammar");

        private final String description;

        Hazard(String description) {
            this.description = description;
        }
    }

    /**
     * A mode the router cannot read (a variable, an expression it does not evaluate): ANSI_QUOTES or
     * NO_BACKSLASH_ESCAPES may be on. (HIGH_NOT_PRECEDENCE and ORACLE are counted only when set by
     * name: refusing every NOT, or everything, on a guess would refuse most statements.)
     */
    static final Set<Hazard> UNKNOWN = EnumSet.of(Hazard.DOUBLE_QUOTED_NAMES, Hazard.LITERAL_BACKSLASHES);

    private static final Pattern SQL_MODE_VARIABLE =
            Pattern.compile("@@(?:session\\.|local\\.)?sql_mode", Pattern.CASE_INSENSITIVE);

    private SqlModeLexing() {}

    /**
     * The hazards after {@code SET sql_mode = <assignment>} in a session whose hazards were {@code
     * before}: read for a literal list of modes, {@code DEFAULT} (the server's default), {@code
     * @@sql_mode} (unchanged) and {@code CONCAT} of those (what Rails and Connector/J send to add a
     * mode); {@link #UNKNOWN} plus {@code before} for anything else.
     */
    public static Set<Hazard> of(String assignment, Set<Hazard> before) {
        Set<Hazard> read = read(assignment.strip(), before);
        if (read != null) {
            return read;
        }
        EnumSet<Hazard> unknown = EnumSet.copyOf(UNKNOWN);
        unknown.addAll(before);
        return unknown;
    }

    /** The hazards of a server's {@code @@global.sql_mode} (a list of mode names as the server reports it). */
    public static Set<Hazard> ofGlobal(String value) {
        return flags(value);
    }

    /** The hazards of {@code value}, or null when it is not read here. */
    private static Set<Hazard> read(String value, Set<Hazard> before) {
        if (value.equalsIgnoreCase("DEFAULT")) {
            return Set.of();
        }
        if (SQL_MODE_VARIABLE.matcher(value).matches()) {
            return before;
        }
        if (value.length() >= 2 && (value.charAt(0) == '\'' || value.charAt(0) == '"')) {
            char quote = value.charAt(0);
            if (value.charAt(value.length() - 1) != quote
                    || value.indexOf('\\') >= 0
                    || value.indexOf(quote, 1) != value.length() - 1) {
                return null; // escapes, doubled quotes, or not one literal
            }
            return flags(value.substring(1, value.length() - 1));
        }
        if (value.length() > 7 && value.regionMatches(true, 0, "CONCAT", 0, 6)) {
            String args = value.substring(6).strip();
            if (!args.startsWith("(") || !args.endsWith(")")) {
                return null;
            }
            EnumSet<Hazard> out = EnumSet.noneOf(Hazard.class);
            for (String arg : arguments(args.substring(1, args.length() - 1))) {
                Set<Hazard> one = arg == null ? null : read(arg.strip(), before);
                if (one == null) {
                    return null;
                }
                out.addAll(one);
            }
            return out;
        }
        return null;
    }

    /** The top-level comma-separated arguments of a call, or a list holding null when unbalanced. */
    private static List<String> arguments(String args) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int from = 0;
        char quote = 0;
        for (int i = 0; i < args.length(); i++) {
            char c = args.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                out.add(args.substring(from, i));
                from = i + 1;
            }
        }
        out.add(quote != 0 || depth != 0 ? null : args.substring(from));
        return out;
    }

    /** The hazards of a comma-separated list of mode names. */
    private static Set<Hazard> flags(String list) {
        EnumSet<Hazard> out = EnumSet.noneOf(Hazard.class);
        for (String flag : list.split(",")) {
            switch (flag.strip().toUpperCase(Locale.ROOT)) {
                case "ANSI_QUOTES", "ANSI", "DB2", "MAXDB", "MSSQL", "POSTGRESQL" ->
                    out.add(Hazard.DOUBLE_QUOTED_NAMES);
                case "ORACLE" -> {
                    out.add(Hazard.DOUBLE_QUOTED_NAMES);
                    out.add(Hazard.ORACLE_GRAMMAR);
                }
                case "NO_BACKSLASH_ESCAPES" -> out.add(Hazard.LITERAL_BACKSLASHES);
                case "HIGH_NOT_PRECEDENCE", "MYSQL323", "MYSQL40" -> out.add(Hazard.HIGH_NOT);
                default -> {
                    // modes that change no reading of the text the router does
                }
            }
        }
        return out;
    }

    /**
     * Why the router refuses {@code sql} ({@code digest}) in a session whose mode has {@code
     * session} hazards, on servers whose global modes have {@code global} ones (a mode the session
     * set may build on them: counted whatever it set), under {@code rules}, or null to route it: only
     * rules that could send it to more than one place (several hostgroups, or query rules matching
     * its text) need the text read as the server reads it. A {@code SET STATEMENT sql_mode = ... FOR}
     * prefix makes the mode unknown.
     */
    public static String refusal(
            Set<Hazard> session, Set<Hazard> global, Digest digest, String sql, RuleSnapshot rules) {
        Set<Hazard> hazards = session;
        boolean prefixed =
                digest.prefix() != null && digest.prefix().variables().contains("sql_mode");
        if (prefixed || !global.isEmpty()) {
            hazards = EnumSet.noneOf(Hazard.class);
            hazards.addAll(session);
            hazards.addAll(global);
            if (prefixed) {
                hazards.addAll(UNKNOWN);
            }
        }
        if (hazards.isEmpty()
                || (rules.hostgroups().size() <= 1 && rules.queryRules().isEmpty())) {
            return null;
        }
        return refusal(hazards, sql);
    }

    /**
     * Why {@code sql} is refused under {@code hazards}, or null: the first hazard its text meets (a
     * double-quoted token, a backslash inside a quoted token, the word NOT; any statement at all
     * under ORACLE). Comments are skipped; the content of executable comments is read as code.
     */
    public static String refusal(Set<Hazard> hazards, String sql) {
        if (hazards.isEmpty()) {
            return null;
        }
        if (hazards.contains(Hazard.ORACLE_GRAMMAR)) {
            return refusal(Hazard.ORACLE_GRAMMAR);
        }
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"' || c == '`') {
                if (c == '"' && hazards.contains(Hazard.DOUBLE_QUOTED_NAMES)) {
                    return refusal(Hazard.DOUBLE_QUOTED_NAMES);
                }
                int end = i + 1;
                while (end < n && sql.charAt(end) != c) {
                    if (sql.charAt(end) == '\\' && c != '`') {
                        if (hazards.contains(Hazard.LITERAL_BACKSLASHES)) {
                            return refusal(Hazard.LITERAL_BACKSLASHES);
                        }
                        end++;
                    }
                    end++;
                }
                i = end + 1; // a doubled quote reads as two tokens here: the same verdict
            } else if (c == '#' || (c == '-' && sql.startsWith("-- ", i)) || (c == '-' && sql.startsWith("--\t", i))) {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            } else if (c == '/' && sql.startsWith("/*", i) && !sql.startsWith("/*!", i) && !sql.startsWith("/*M!", i)) {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (Character.isLetter(c) || c == '_' || c == '$') {
                int end = i + 1;
                while (end < n
                        && (Character.isLetterOrDigit(sql.charAt(end))
                                || sql.charAt(end) == '_'
                                || sql.charAt(end) == '$')) {
                    end++;
                }
                if (hazards.contains(Hazard.HIGH_NOT) && end - i == 3 && sql.regionMatches(true, i, "NOT", 0, 3)) {
                    return refusal(Hazard.HIGH_NOT);
                }
                i = end;
            } else {
                i++;
            }
        }
        return null;
    }

    private static String refusal(Hazard hazard) {
        return "a statement whose text the session's sql_mode reads otherwise than the router does: "
                + hazard.description + ", where the rules could route it to more than one place";
    }
}
