package io.shardgate.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The words {@link Cacheability} looks for, matched case-insensitively against a region of the
 * digest text without allocating (the digest upper-cases reserved words only).
 */
final class Words {
    /** Words whose position decides: the statement kind, locking clauses, sequences, INTO. */
    private static final String[][] KEYWORDS = byLength(
            "SELECT",
            "WITH",
            "FOR",
            "UPDATE",
            "SHARE",
            "LOCK",
            "IN",
            "NEXT",
            "PREVIOUS",
            "VALUE",
            "INTO",
            "SQL_CALC_FOUND_ROWS",
            "SQL_NO_CACHE",
            "INSERT",
            "DELETE",
            "REPLACE");

    /** Functions MySQL lets a query call without parentheses. */
    private static final String[][] BARE = byLength(
            "CURRENT_TIMESTAMP",
            "CURRENT_DATE",
            "CURRENT_TIME",
            "LOCALTIME",
            "LOCALTIMESTAMP",
            "UTC_DATE",
            "UTC_TIME",
            "UTC_TIMESTAMP",
            "CURRENT_USER",
            "CURRENT_ROLE");

    /** Functions whose result depends on time, chance, the session or the server's state. */
    private static final String[][] FUNCTIONS = byLength(
            "NOW",
            "SYSDATE",
            "CURDATE",
            "CURTIME",
            "UNIX_TIMESTAMP",
            "RAND",
            "RANDOM_BYTES",
            "UUID",
            "UUID_SHORT",
            "SYS_GUID",
            "USER",
            "SESSION_USER",
            "SYSTEM_USER",
            "CONNECTION_ID",
            "LAST_INSERT_ID",
            "FOUND_ROWS",
            "ROW_COUNT",
            "DATABASE",
            "SCHEMA",
            "SLEEP",
            "BENCHMARK",
            "GET_LOCK",
            "RELEASE_LOCK",
            "RELEASE_ALL_LOCKS",
            "IS_FREE_LOCK",
            "IS_USED_LOCK",
            "NEXTVAL",
            "LASTVAL",
            "SETVAL",
            "MASTER_POS_WAIT",
            "SOURCE_POS_WAIT",
            "MASTER_GTID_WAIT",
            "WAIT_FOR_EXECUTED_GTID_SET",
            "WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS",
            "LOAD_FILE",
            "PS_CURRENT_THREAD_ID",
            "PS_THREAD_ID",
            "CURRENT_TIMESTAMP",
            "CURRENT_DATE",
            "CURRENT_TIME",
            "LOCALTIME",
            "LOCALTIMESTAMP",
            "UTC_DATE",
            "UTC_TIME",
            "UTC_TIMESTAMP",
            "CURRENT_USER",
            "CURRENT_ROLE");

    private Words() {}

    /** The upper-case keyword or bare function at {@code text[start, end)}, or "" for any other word. */
    static String keyword(String text, int start, int end) {
        String k = find(KEYWORDS, text, start, end);
        if (k != null) {
            return k;
        }
        k = find(BARE, text, start, end);
        return k != null ? k : "";
    }

    /** {@code keyword} itself when it is a function callable without parentheses, else null. */
    static String bare(String keyword) {
        return find(BARE, keyword, 0, keyword.length());
    }

    /** The upper-case name of the uncacheable function at {@code text[start, end)}, or null. */
    static String function(String text, int start, int end) {
        return find(FUNCTIONS, text, start, end);
    }

    private static String find(String[][] table, String text, int start, int end) {
        int len = end - start;
        if (len >= table.length) {
            return null;
        }
        for (String candidate : table[len]) {
            if (text.regionMatches(true, start, candidate, 0, len)) {
                return candidate;
            }
        }
        return null;
    }

    private static String[][] byLength(String... words) {
        int max = Stream.of(words).mapToInt(String::length).max().orElse(0);
        List<List<String>> lists = new ArrayList<>();
        for (int i = 0; i <= max; i++) {
            lists.add(new ArrayList<>());
        }
        for (String w : words) {
            lists.get(w.length()).add(w);
        }
        String[][] table = new String[max + 1][];
        for (int i = 0; i <= max; i++) {
            table[i] = lists.get(i).toArray(String[]::new);
        }
        return table;
    }
}
