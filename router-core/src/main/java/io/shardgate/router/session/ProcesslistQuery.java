package io.shardgate.router.session;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A statement asking for the process list, which through the router means the router's sessions:
 * {@code SHOW [FULL] PROCESSLIST}, or {@code SELECT} from {@code information_schema.PROCESSLIST}
 * in the forms the router answers itself — a select list of {@code *}, column names, or {@code
 * COUNT(*)} items (each alone or compared with an integer: {@code COUNT(*) = 1}, what mtr's
 * {@code wait_condition.inc} asks), a {@code WHERE} of {@code column = | <> | != literal} terms joined by {@code AND}, an {@code ORDER
 * BY} of one column. Any other SELECT naming that table parses to a refusal: sent on, a backend
 * would list its own threads, which belong to pooled connections, not to the client's sessions.
 *
 * @param full SHOW FULL PROCESSLIST, or the information_schema table (Info not truncated)
 * @param show SHOW [FULL] PROCESSLIST (its column names: Id, User, Host, db...), not a SELECT
 * @param columns the columns asked for, upper case, in order ({@link #COLUMNS} for {@code *});
 *     empty when the select list counts
 * @param counts the {@code COUNT(*)} items of the select list, in order; empty when it lists columns
 * @param where the terms every listed row satisfies
 * @param orderBy the column to sort by (upper case), or null for the session id
 * @param descending ORDER BY ... DESC
 * @param refusal why the router does not answer this form (for ER_NOT_SUPPORTED_YET), or null
 */
public record ProcesslistQuery(
        boolean full,
        boolean show,
        List<String> columns,
        List<Count> counts,
        List<Term> where,
        String orderBy,
        boolean descending,
        String refusal) {

    /** The columns of information_schema.PROCESSLIST as MySQL 8 has them (MariaDB has these first). */
    public static final List<String> COLUMNS = List.of("ID", "USER", "HOST", "DB", "COMMAND", "TIME", "STATE", "INFO");

    /**
     * MariaDB's columns beyond those eight: a server thread's own (memory, rows, stage...), which a
     * router session does not have. Read only for the session's own row, on the backend connection
     * it holds ({@link #ownBackendRow}); elsewhere refused.
     */
    public static final List<String> BACKEND_COLUMNS = List.of(
            "TIME_MS",
            "STAGE",
            "MAX_STAGE",
            "PROGRESS",
            "MEMORY_USED",
            "MAX_MEMORY_USED",
            "EXAMINED_ROWS",
            "SENT_ROWS",
            "QUERY_ID",
            "INFO_BINARY",
            "TID");

    /** Columns holding numbers; the others hold text. */
    public static final List<String> NUMERIC = List.of("ID", "TIME");

    private static final String SUPPORTED = "SELECT *, column names or COUNT(*) [= | <> | < | <= | > | >= integer]"
            + " FROM information_schema.PROCESSLIST"
            + " [WHERE column = | <> literal [AND ...]] [ORDER BY column [ASC | DESC]]";

    /**
     * One WHERE term: {@code column = value} ({@code equal}) or {@code column <> value}.
     *
     * @param value a Long for ID and TIME, a String for the other columns
     */
    public record Term(String column, boolean equal, Object value) {}

    /**
     * One {@code COUNT(*)} select item: the count of the rows the WHERE keeps, or, with an {@code
     * operator}, 1 or 0 as that count compares with {@code value}.
     *
     * @param name the item's text as the client wrote it, which MySQL names the column
     * @param operator {@code =}, {@code <>}, {@code <}, {@code <=}, {@code >} or {@code >=}; null for the count itself
     */
    public record Count(String name, String operator, long value) {
        /** The item's value for {@code rows} rows. */
        public long value(long rows) {
            if (operator == null) {
                return rows;
            }
            boolean holds = switch (operator) {
                case "=" -> rows == value;
                case "<>" -> rows != value;
                case "<" -> rows < value;
                case "<=" -> rows <= value;
                case ">" -> rows > value;
                case ">=" -> rows >= value;
                default -> throw new IllegalStateException(operator);
            };
            return holds ? 1 : 0;
        }
    }

    /**
     * The process-list query in {@code sql} (digested as {@code digest}), or null when it is not
     * one; looked at closer only when the digest saw the word.
     */
    public static ProcesslistQuery parse(Digest digest, String sql) {
        return digest.has(Mark.PROCESSLIST) ? parse(sql) : null;
    }

    /** The process-list query in {@code sql}, or null when {@code sql} is not one. */
    public static ProcesslistQuery parse(String sql) {
        if (!Lexer.mentions(sql, "PROCESSLIST")) {
            return null; // nearly every statement: no tokenising
        }
        Lexer lexer = new Lexer(sql);
        if (!lexer.next()) {
            return null;
        }
        if (lexer.is("SHOW")) {
            lexer.next();
            boolean full = lexer.is("FULL");
            if (full) {
                lexer.next();
            }
            if (!lexer.is("PROCESSLIST") || !endsAfter(lexer)) {
                return null; // other SHOW statements, or SHOW PROCESSLIST with trailing words: the backend's error
            }
            return new ProcesslistQuery(full, true, COLUMNS, List.of(), List.of(), null, false, null);
        }
        if (!lexer.is("SELECT") || !namesTable(sql)) {
            return null;
        }
        try {
            return select(lexer);
        } catch (IllegalArgumentException e) {
            return refused(e.getMessage());
        }
    }

    private static ProcesslistQuery select(Lexer lexer) {
        lexer.next();
        List<String> columns = new ArrayList<>();
        List<Count> counts = new ArrayList<>();
        if (isPunct(lexer, '*')) {
            columns.addAll(COLUMNS);
            lexer.next();
        } else if (lexer.is("COUNT")) {
            do {
                counts.add(count(lexer));
            } while (isPunct(lexer, ',') && lexer.next());
        } else {
            do {
                columns.add(column(lexer, true));
            } while (isPunct(lexer, ',') && lexer.next());
        }
        expect(lexer, "FROM");
        expect(lexer, "INFORMATION_SCHEMA");
        if (!isPunct(lexer, '.')) {
            throw unsupported();
        }
        lexer.next();
        expect(lexer, "PROCESSLIST");
        List<Term> where = new ArrayList<>();
        if (lexer.is("WHERE")) {
            lexer.next();
            do {
                where.add(term(lexer));
            } while (lexer.is("AND") && lexer.next());
        }
        String orderBy = null;
        boolean descending = false;
        if (lexer.is("ORDER")) {
            lexer.next();
            expect(lexer, "BY");
            orderBy = column(lexer);
            if (lexer.is("DESC") || lexer.is("ASC")) {
                descending = lexer.is("DESC");
                lexer.next();
            }
        }
        if (!atEnd(lexer)) {
            throw unsupported();
        }
        return new ProcesslistQuery(
                true, false, List.copyOf(columns), List.copyOf(counts), List.copyOf(where), orderBy, descending, null);
    }

    /**
     * {@code COUNT(*)}, or {@code COUNT(*)} compared with an integer, as one select item. The call's
     * parenthesis must follow the name (MySQL's rule for built-in functions without IGNORE_SPACE).
     */
    private static Count count(Lexer lexer) {
        int from = lexer.start;
        if (!lexer.is("COUNT")) {
            throw new IllegalArgumentException("a mix of COUNT(*) and other select items in"
                    + " information_schema.PROCESSLIST through the router (supported: " + SUPPORTED + ")");
        }
        int after = lexer.end;
        lexer.next();
        if (!isPunct(lexer, '(') || lexer.start != after) {
            throw unsupported();
        }
        lexer.next();
        if (!isPunct(lexer, '*')) {
            throw unsupported(); // COUNT(column), COUNT(DISTINCT ...): NULL handling not reproduced here
        }
        lexer.next();
        if (!isPunct(lexer, ')')) {
            throw unsupported();
        }
        int to = lexer.end;
        lexer.next();
        String operator = operator(lexer);
        long value = 0;
        if (operator != null) {
            if (lexer.kind != Lexer.Kind.NUMBER) {
                throw unsupported();
            }
            try {
                value = Long.parseLong(lexer.text.substring(lexer.start, lexer.end));
            } catch (NumberFormatException e) {
                throw unsupported(); // 1.5, 1e3, 0x10: MySQL's number conversions not reproduced here
            }
            to = lexer.end;
            lexer.next();
        }
        return new Count(lexer.text.substring(from, to), operator, value);
    }

    /** A comparison operator at the lexer (consumed), or null when there is none. */
    private static String operator(Lexer lexer) {
        String first;
        if (lexer.kind == Lexer.Kind.OPERATOR
                && lexer.text.startsWith("=", lexer.start)
                && lexer.end == lexer.start + 1) {
            lexer.next();
            return "=";
        } else if (isPunct(lexer, '<') || isPunct(lexer, '>') || isPunct(lexer, '!')) {
            first = lexer.text.substring(lexer.start, lexer.end);
        } else {
            return null;
        }
        int after = lexer.end;
        lexer.next();
        boolean adjacent = lexer.start == after;
        if (adjacent && lexer.kind == Lexer.Kind.OPERATOR && lexer.text.startsWith("=", lexer.start)) {
            lexer.next();
            return first.equals("!") ? "<>" : first + "=";
        }
        if (adjacent && first.equals("<") && isPunct(lexer, '>')) {
            lexer.next();
            return "<>";
        }
        if (first.equals("!") || (adjacent && (isPunct(lexer, '<') || isPunct(lexer, '>')))) {
            throw unsupported(); // <=>, <<, >>, a lone !
        }
        return first;
    }

    private static Term term(Lexer lexer) {
        String column = column(lexer);
        boolean equal;
        if (lexer.kind == Lexer.Kind.OPERATOR && lexer.text.charAt(lexer.start) == '=') {
            equal = true;
            lexer.next();
        } else if (isPunct(lexer, '<')) {
            lexer.next();
            if (!isPunct(lexer, '>')) {
                throw unsupported();
            }
            equal = false;
            lexer.next();
        } else if (isPunct(lexer, '!')) {
            lexer.next();
            if (!(lexer.kind == Lexer.Kind.OPERATOR && lexer.text.charAt(lexer.start) == '=')) {
                throw unsupported();
            }
            equal = false;
            lexer.next();
        } else {
            throw unsupported();
        }
        Object value;
        boolean numeric = NUMERIC.contains(column);
        if (numeric && lexer.kind == Lexer.Kind.NUMBER) {
            try {
                value = Long.parseLong(lexer.text.substring(lexer.start, lexer.end));
            } catch (NumberFormatException e) {
                throw unsupported();
            }
        } else if (!numeric && lexer.kind == Lexer.Kind.STRING) {
            String text = unquote(lexer.text.substring(lexer.start, lexer.end));
            if (!text.chars().allMatch(c -> c >= 0x20 && c < 0x7F) || text.endsWith(" ")) {
                // the collation's accent folding and trailing-space padding are not reproduced here
                throw new IllegalArgumentException("a comparison with a string that is not plain ASCII (or ends"
                        + " in a space) in information_schema.PROCESSLIST through the router");
            }
            value = text;
        } else {
            // a number against a text column (or the reverse) converts by MySQL's rules: not done here
            throw new IllegalArgumentException("a comparison of " + column + " with "
                    + (numeric ? "anything but an integer" : "anything but a string literal")
                    + " in information_schema.PROCESSLIST through the router (supported: " + SUPPORTED + ")");
        }
        lexer.next();
        return new Term(column, equal, value);
    }

    private static String column(Lexer lexer) {
        return column(lexer, false);
    }

    /** A column name, upper case; {@code selected}: in the select list, where a backend column may be. */
    private static String column(Lexer lexer, boolean selected) {
        String name;
        if (lexer.kind == Lexer.Kind.WORD) {
            name = lexer.text.substring(lexer.start, lexer.end);
        } else if (lexer.kind == Lexer.Kind.QUOTED_IDENTIFIER) {
            name = lexer.text.substring(lexer.start + 1, lexer.end - 1).replace("``", "`");
        } else {
            throw unsupported();
        }
        String upper = name.toUpperCase(Locale.ROOT);
        if (!COLUMNS.contains(upper) && !(selected && BACKEND_COLUMNS.contains(upper))) {
            throw new IllegalArgumentException("column '" + name + "' of information_schema.PROCESSLIST through the"
                    + " router (it has " + String.join(", ", COLUMNS) + ")");
        }
        lexer.next();
        return upper;
    }

    /**
     * Whether the answer depends on the STATE column (listed, filtered or sorted on), which for a
     * session running a statement on a backend is that server thread's.
     */
    public boolean readsState() {
        return columns.contains("STATE")
                || "STATE".equals(orderBy)
                || where.stream().anyMatch(t -> t.column().equals("STATE"));
    }

    /** Whether the select list names a column of {@link #BACKEND_COLUMNS}. */
    public boolean readsBackendColumns() {
        return columns.stream().anyMatch(BACKEND_COLUMNS::contains);
    }

    /**
     * Whether {@code sql}, the client's text (CONNECTION_ID() not replaced), reads only the row of
     * the server session that runs it and nothing that differs between that session and the
     * client's: a SELECT of listed columns other than ID, USER and HOST (the backend's thread id and
     * account) with {@code WHERE ID = CONNECTION_ID()} alone. Run on the backend connection a
     * session holds, it answers what the server answers a client of its own for those columns.
     */
    public static boolean ownBackendRow(String sql) {
        long marker = Long.MAX_VALUE; // a number no session has, standing for the call
        ProcesslistQuery query = parse(ConnectionIdCall.substitute(sql, marker));
        return query != null
                && query.refusal() == null
                && !query.show()
                && query.where().equals(List.of(new Term("ID", true, marker)))
                && query.columns().stream().noneMatch(c -> c.equals("ID") || c.equals("USER") || c.equals("HOST"))
                && !query.columns().equals(COLUMNS); // (SELECT * lists them)
    }

    /**
     * Why the router does not run {@code sql}, a query of {@link #readsBackendColumns backend
     * columns}, on the session's backend connection, or null to run it there: it must read the
     * session's own row ({@link #ownBackendRow}) and the session must hold its connection ({@code
     * holdsConnection}: multiplexing off, or state such as user variables or a transaction), whose
     * server thread serves this session alone. A pooled connection's thread serves other sessions
     * too, and another session's row has no such values.
     */
    public static String backendColumnsRefusal(String sql, boolean holdsConnection) {
        if (ownBackendRow(sql) && holdsConnection) {
            return null;
        }
        return "columns of a server thread (" + String.join(", ", BACKEND_COLUMNS)
                + ") in information_schema.PROCESSLIST through the router, except for the session's own row (WHERE"
                + " ID = CONNECTION_ID() alone, without ID, USER or HOST) while it holds its backend connection"
                + " (multiplexing: false, or state such as user variables or a transaction)";
    }

    /** The text of a quoted string literal: doubled quotes and backslash escapes undone. */
    static String unquote(String literal) {
        char quote = literal.charAt(0);
        StringBuilder out = new StringBuilder(literal.length());
        for (int i = 1; i < literal.length() - 1; i++) {
            char c = literal.charAt(i);
            if (c == '\\' && i + 1 < literal.length() - 1) {
                char e = literal.charAt(++i);
                out.append(
                        switch (e) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            case 'r' -> '\r';
                            case '0' -> '\0';
                            default -> e;
                        });
            } else if (c == quote) {
                i++; // the first of a doubled quote
                out.append(c);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static void expect(Lexer lexer, String keyword) {
        if (!lexer.is(keyword)) {
            throw unsupported();
        }
        lexer.next();
    }

    /** True when nothing but an optional ';' follows the current token. */
    private static boolean endsAfter(Lexer lexer) {
        lexer.next();
        return atEnd(lexer);
    }

    /** True when the current token is the end, or a ';' that ends the text. */
    private static boolean atEnd(Lexer lexer) {
        if (isPunct(lexer, ';')) {
            lexer.next();
        }
        return lexer.kind == Lexer.Kind.END;
    }

    /** True when {@code sql} names information_schema.PROCESSLIST anywhere outside strings and comments. */
    private static boolean namesTable(String sql) {
        Lexer lexer = new Lexer(sql);
        int state = 0; // 1: after INFORMATION_SCHEMA, 2: after its dot
        while (lexer.next()) {
            if (lexer.is("PROCESSLIST") && state == 2) {
                return true;
            }
            boolean schema = lexer.is("INFORMATION_SCHEMA")
                    || (lexer.kind == Lexer.Kind.QUOTED_IDENTIFIER
                            && lexer.text.regionMatches(true, lexer.start, "`information_schema`", 0, 20)
                            && lexer.end - lexer.start == 20);
            if (schema) {
                state = 1;
            } else if (state == 1 && isPunct(lexer, '.')) {
                state = 2;
            } else if (state == 2
                    && lexer.kind == Lexer.Kind.QUOTED_IDENTIFIER
                    && lexer.text.regionMatches(true, lexer.start, "`processlist`", 0, 13)
                    && lexer.end - lexer.start == 13) {
                return true;
            } else {
                state = 0;
            }
        }
        return false;
    }

    private static boolean isPunct(Lexer lexer, char c) {
        return lexer.kind == Lexer.Kind.PUNCT && lexer.text.charAt(lexer.start) == c;
    }

    private static IllegalArgumentException unsupported() {
        return new IllegalArgumentException(
                "this form of SELECT from information_schema.PROCESSLIST through the router (supported: " + SUPPORTED
                        + ")");
    }

    private static ProcesslistQuery refused(String why) {
        return new ProcesslistQuery(true, false, COLUMNS, List.of(), List.of(), null, false, why);
    }
}
