package io.shardgate.cache;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Hint;

/**
 * Decides from a statement's digest and the session's transaction state whether its result may
 * come from, or go into, the result cache: only a plain {@code SELECT} whose answer depends on
 * nothing but its text and the data, run in autocommit mode outside a transaction. Locking reads,
 * {@code SELECT ... INTO}, non-deterministic or session-dependent functions ({@code NOW()}, {@code
 * RAND()}, {@code CURRENT_USER}, {@code LAST_INSERT_ID()}, sequences, locks, ...), user and
 * system variables, {@code SQL_CALC_FOUND_ROWS} and {@code SQL_NO_CACHE} make it uncacheable.
 *
 * <p>Stored functions are not recognised (their determinism is unknown here); a query rule that
 * sets {@code cache_ttl_ms} on a statement calling one takes that responsibility.
 *
 * <p>Hand-written rather than a parse: it runs for every read, and the normalized digest text
 * (literals already {@code ?}, comments folded, reserved words upper-cased) makes a single
 * allocation-free pass over its words enough.
 */
public final class Cacheability {
    private Cacheability() {}

    /**
     * The cache mode for one statement.
     *
     * @param autocommit the session's {@code autocommit}
     * @param inTransaction whether the session has a transaction open (BEGIN, START TRANSACTION, or
     *     any statement since the last COMMIT with autocommit off)
     */
    public static CacheMode decide(Digest digest, boolean autocommit, boolean inTransaction) {
        return decide(digest, uncacheableReason(digest), autocommit, inTransaction);
    }

    /**
     * The cache mode for one statement whose shape's {@link #uncacheableReason} is {@code
     * uncacheable} (worked out once per shape by the caller).
     */
    public static CacheMode decide(Digest digest, String uncacheable, boolean autocommit, boolean inTransaction) {
        if (!autocommit || inTransaction || digest.has(Hint.NOCACHE) || uncacheable != null) {
            return CacheMode.BYPASS;
        }
        return digest.has(Hint.WIPE) ? CacheMode.REFRESH : CacheMode.USE;
    }

    /**
     * Why the statement's shape can never be cached (ignoring hints and session state), or {@code
     * null} when it can: for logs and the admin's explain view.
     */
    public static String uncacheableReason(Digest digest) {
        if (digest.multiStatement()) {
            return "multi-statement";
        }
        if (digest.prefix() != null) {
            // its variables may change the result, and their values are not in the cache key
            return "SET STATEMENT ... FOR";
        }
        return new Scan(digest.text()).run();
    }

    /** One pass over the words of a normalized text. */
    private static final class Scan {
        private final String text;
        private int pos;
        private int start;
        private int end;
        private boolean quoted;
        private int words;
        private boolean withClause;
        private boolean writes;
        private String previous = "";

        Scan(String text) {
            this.text = text;
        }

        String run() {
            while (nextWord()) {
                String reason = word();
                if (reason != null) {
                    return reason;
                }
            }
            if (words == 0) {
                return "not a SELECT";
            }
            return withClause && writes ? "WITH before a data-changing statement" : null;
        }

        /** Checks the current word; returns a reason when it makes the statement uncacheable. */
        private String word() {
            words++;
            if (text.charAt(start) == '@') {
                return "user or system variable " + current();
            }
            String keyword = quoted ? "" : Words.keyword(text, start, end);
            if (words == 1) {
                if (keyword.equals("WITH")) {
                    withClause = true;
                } else if (!keyword.equals("SELECT")) {
                    return "not a SELECT";
                }
            }
            boolean call = followedByParenthesis();
            // quoted names too: `rand`() calls a function of that name, whose determinism is unknown
            String reason = check(keyword, call);
            previous = keyword;
            return reason;
        }

        private String check(String keyword, boolean call) {
            switch (keyword) {
                case "UPDATE", "SHARE" -> {
                    if (previous.equals("FOR")) {
                        return "locking read FOR " + keyword;
                    }
                    writes |= keyword.equals("UPDATE");
                }
                case "IN" -> {
                    if (previous.equals("LOCK")) {
                        return "locking read LOCK IN SHARE MODE";
                    }
                }
                case "VALUE" -> {
                    if (previous.equals("NEXT") || previous.equals("PREVIOUS")) {
                        return "sequence " + previous + " VALUE FOR";
                    }
                }
                case "INTO" -> {
                    return "SELECT ... INTO";
                }
                case "SQL_CALC_FOUND_ROWS", "SQL_NO_CACHE" -> {
                    return keyword;
                }
                case "INSERT", "DELETE" -> writes = true;
                case "REPLACE" -> writes |= !call;
                default -> {}
            }
            String bare = Words.bare(keyword);
            if (bare != null) {
                return "function " + bare;
            }
            if (call) {
                String function = Words.function(text, start, end);
                if (function != null && !(function.equals("UNIX_TIMESTAMP") && !emptyArguments())) {
                    return "function " + function + "()";
                }
            }
            return null;
        }

        /** Moves to the next word (a name, keyword or variable); false at the end of the text. */
        private boolean nextWord() {
            int n = text.length();
            while (pos < n) {
                char c = text.charAt(pos);
                if (c == '`') {
                    int close = text.indexOf('`', pos + 1);
                    close = close < 0 ? n : close;
                    start = pos + 1;
                    end = close;
                    quoted = true;
                    pos = Math.min(n, close + 1);
                    return true;
                }
                if (isWordChar(c) || c == '@') {
                    start = pos;
                    pos++;
                    while (pos < n && (isWordChar(text.charAt(pos)) || text.charAt(pos) == '@')) {
                        pos++;
                    }
                    end = pos;
                    quoted = false;
                    return true;
                }
                pos++;
            }
            return false;
        }

        private boolean followedByParenthesis() {
            int i = pos;
            if (i < text.length() && text.charAt(i) == ' ') {
                i++; // the digest keeps one space where the client wrote RAND ()
            }
            return i < text.length() && text.charAt(i) == '(';
        }

        private boolean emptyArguments() {
            int open = text.indexOf('(', pos);
            return open + 1 < text.length() && text.charAt(open + 1) == ')';
        }

        private String current() {
            return text.substring(start, end);
        }

        private static boolean isWordChar(char c) {
            return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '.';
        }
    }
}
