package io.shardgate.sharding.digest;

/**
 * The words the digest upper-cases, looked up in place (no substring) with an open-addressed table.
 * Only MySQL reserved words are folded everywhere: they can never be an unquoted table name, whose
 * case matters on most servers. Aggregate and common function names are folded only when directly
 * followed by {@code (}, and transaction words only at the start of a statement.
 */
final class Keywords {
    static final String[] RESERVED = {
        "ACCESSIBLE",
        "ADD",
        "ALL",
        "ALTER",
        "ANALYZE",
        "AND",
        "AS",
        "ASC",
        "ASENSITIVE",
        "BEFORE",
        "BETWEEN",
        "BIGINT",
        "BINARY",
        "BLOB",
        "BOTH",
        "BY",
        "CALL",
        "CASCADE",
        "CASE",
        "CHANGE",
        "CHAR",
        "CHARACTER",
        "CHECK",
        "COLLATE",
        "COLUMN",
        "CONDITION",
        "CONSTRAINT",
        "CONTINUE",
        "CONVERT",
        "CREATE",
        "CROSS",
        "CURRENT_DATE",
        "CURRENT_TIME",
        "CURRENT_TIMESTAMP",
        "CURRENT_USER",
        "CURSOR",
        "DATABASE",
        "DATABASES",
        "DAY_HOUR",
        "DAY_MICROSECOND",
        "DAY_MINUTE",
        "DAY_SECOND",
        "DEC",
        "DECIMAL",
        "DECLARE",
        "DEFAULT",
        "DELAYED",
        "DELETE",
        "DESC",
        "DESCRIBE",
        "DETERMINISTIC",
        "DISTINCT",
        "DISTINCTROW",
        "DIV",
        "DOUBLE",
        "DROP",
        "DUAL",
        "EACH",
        "ELSE",
        "ELSEIF",
        "ENCLOSED",
        "ESCAPED",
        "EXISTS",
        "EXIT",
        "EXPLAIN",
        "FALSE",
        "FETCH",
        "FLOAT",
        "FOR",
        "FORCE",
        "FOREIGN",
        "FROM",
        "FULLTEXT",
        "GRANT",
        "GROUP",
        "HAVING",
        "HIGH_PRIORITY",
        "HOUR_MICROSECOND",
        "HOUR_MINUTE",
        "HOUR_SECOND",
        "IF",
        "IGNORE",
        "IN",
        "INDEX",
        "INFILE",
        "INNER",
        "INOUT",
        "INSENSITIVE",
        "INSERT",
        "INT",
        "INTEGER",
        "INTERVAL",
        "INTO",
        "IS",
        "ITERATE",
        "JOIN",
        "KEY",
        "KEYS",
        "KILL",
        "LEADING",
        "LEAVE",
        "LEFT",
        "LIKE",
        "LIMIT",
        "LINEAR",
        "LINES",
        "LOAD",
        "LOCALTIME",
        "LOCALTIMESTAMP",
        "LOCK",
        "LONG",
        "LOOP",
        "LOW_PRIORITY",
        "MATCH",
        "MINUTE_SECOND",
        "MOD",
        "MODIFIES",
        "NATURAL",
        "NOT",
        "NO_WRITE_TO_BINLOG",
        "NULL",
        "NUMERIC",
        "ON",
        "OPTIMIZE",
        "OPTION",
        "OPTIONALLY",
        "OR",
        "ORDER",
        "OUT",
        "OUTER",
        "OUTFILE",
        "PRECISION",
        "PRIMARY",
        "PROCEDURE",
        "PURGE",
        "RANGE",
        "READ",
        "READS",
        "REAL",
        "REFERENCES",
        "REGEXP",
        "RELEASE",
        "RENAME",
        "REPEAT",
        "REPLACE",
        "REQUIRE",
        "RESTRICT",
        "RETURN",
        "REVOKE",
        "RIGHT",
        "RLIKE",
        "SCHEMA",
        "SCHEMAS",
        "SELECT",
        "SENSITIVE",
        "SEPARATOR",
        "SET",
        "SHOW",
        "SMALLINT",
        "SPATIAL",
        "SPECIFIC",
        "SQL",
        "SQL_BIG_RESULT",
        "SQL_CALC_FOUND_ROWS",
        "SQL_SMALL_RESULT",
        "STARTING",
        "STRAIGHT_JOIN",
        "TABLE",
        "TERMINATED",
        "THEN",
        "TINYINT",
        "TO",
        "TRAILING",
        "TRIGGER",
        "TRUE",
        "UNDO",
        "UNION",
        "UNIQUE",
        "UNLOCK",
        "UNSIGNED",
        "UPDATE",
        "USAGE",
        "USE",
        "USING",
        "UTC_DATE",
        "UTC_TIME",
        "UTC_TIMESTAMP",
        "VALUES",
        "VARBINARY",
        "VARCHAR",
        "VARYING",
        "WHEN",
        "WHERE",
        "WHILE",
        "WITH",
        "WRITE",
        "XOR",
        "YEAR_MONTH",
        "ZEROFILL"
    };
    static final String[] FUNCTIONS = {
        "AVG",
        "COUNT",
        "MAX",
        "MIN",
        "SUM",
        "GROUP_CONCAT",
        "CONCAT",
        "COALESCE",
        "IFNULL",
        "NOW",
        "LOWER",
        "UPPER",
        "LENGTH",
        "ABS",
        "ROUND",
        "FLOOR",
        "CEIL",
        "SUBSTRING",
        "CAST",
        "DATABASE",
        "LAST_INSERT_ID"
    };
    static final String[] STATEMENT_START = {
        "BEGIN",
        "COMMIT",
        "ROLLBACK",
        "START",
        "TRUNCATE",
        "SAVEPOINT",
        "FLUSH",
        "HANDLER",
        "DO",
        "PREPARE",
        "EXECUTE",
        "DEALLOCATE",
        "XA"
    };

    static final Keywords RESERVED_WORDS = new Keywords(RESERVED);
    static final Keywords FUNCTION_WORDS = new Keywords(FUNCTIONS);
    static final Keywords STATEMENT_WORDS = new Keywords(STATEMENT_START);
    static final Keywords MARKED_WORDS = new Keywords(Mark.WORDS);

    private final String[] table;

    private Keywords(String[] words) {
        table = new String[Integer.highestOneBit(words.length * 4)];
        for (String w : words) {
            int i = hash(w, 0, w.length()) & (table.length - 1);
            while (table[i] != null) {
                i = (i + 1) & (table.length - 1);
            }
            table[i] = w;
        }
    }

    /** The upper-case word equal, ignoring ASCII case, to {@code s[start, end)}, or {@code null}. */
    String lookup(CharSequence s, int start, int end) {
        int i = hash(s, start, end) & (table.length - 1);
        for (String w = table[i]; w != null; w = table[i = (i + 1) & (table.length - 1)]) {
            if (w.length() == end - start && equalsIgnoreAsciiCase(w, s, start)) {
                return w;
            }
        }
        return null;
    }

    private static boolean equalsIgnoreAsciiCase(String upper, CharSequence s, int start) {
        for (int i = 0; i < upper.length(); i++) {
            if (upper.charAt(i) != toUpper(s.charAt(start + i))) {
                return false;
            }
        }
        return true;
    }

    private static int hash(CharSequence s, int start, int end) {
        int h = 0;
        for (int i = start; i < end; i++) {
            h = 31 * h + toUpper(s.charAt(i));
        }
        return h ^ (h >>> 16);
    }

    static char toUpper(char c) {
        return c >= 'a' && c <= 'z' ? (char) (c - 32) : c;
    }
}
