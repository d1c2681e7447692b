package io.shardgate.router.twophase;

import io.shardgate.router.session.BuiltinFunctions;
import io.shardgate.sharding.digest.Digest;
import java.util.Locale;
import java.util.Set;

/**
 * Whether a statement of a two_phase transaction is known to change no data on its shard, so that
 * a branch which ran only such statements needs no second phase (see docs/transactions.md). Only
 * what is proven a read counts: SELECT (also FOR UPDATE / LOCK IN SHARE MODE: locks, no change),
 * SHOW, DESCRIBE and SET, each a single statement calling no function outside {@link BuiltinFunctions} —
 * a stored function called from a SELECT may write. Everything else is a write: INSERT, UPDATE,
 * DELETE, REPLACE, DDL, CALL, DO, LOAD DATA, HANDLER, multi-statements and any statement not known.
 * A pure function of the digest.
 */
public final class ReadOnlyStatement {
    private static final Set<String> FIRST_WORDS = Set.of("SELECT", "SHOW", "DESCRIBE", "DESC", "SET");

    private ReadOnlyStatement() {}

    /** True when the statement of {@code digest} changes no data; false for null (not known). */
    public static boolean is(Digest digest) {
        return digest != null && !digest.multiStatement() && isText(digest.text());
    }

    /** {@link #is} on a digest's normalized text (literals are {@code ?}, so no quoted string is seen). */
    static boolean isText(String text) {
        int start = 0;
        while (start < text.length() && text.charAt(start) == '(') {
            start++; // (SELECT ...) UNION (SELECT ...)
        }
        int end = wordEnd(text, start);
        String first = text.substring(start, end).toUpperCase(Locale.ROOT);
        if (!FIRST_WORDS.contains(first) || (start > 0 && !first.equals("SELECT"))) {
            return false;
        }
        // NEXT VALUE FOR takes a number from a sequence: a change, and no parenthesis shows it
        return !text.toUpperCase(Locale.ROOT).contains("NEXT VALUE FOR") && !callsUnknownFunction(text);
    }

    /** Whether a name not known as a built-in is followed by {@code (}: a stored or loadable function. */
    private static boolean callsUnknownFunction(String text) {
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '`') {
                int close = text.indexOf('`', i + 1);
                while (close >= 0 && close + 1 < text.length() && text.charAt(close + 1) == '`') {
                    close = text.indexOf('`', close + 2); // `` inside a quoted name
                }
                if (close < 0) {
                    return true; // not understood: count it as a write
                }
                if (followedByParenthesis(text, close + 1)) {
                    return true; // a quoted name is never a built-in
                }
                i = close + 1;
            } else if (isWordStart(c)) {
                int end = wordEnd(text, i);
                boolean qualified = i > 0 && text.charAt(i - 1) == '.';
                if (followedByParenthesis(text, end)) {
                    String word = text.substring(i, end);
                    boolean known = !qualified
                            && (Digest.isReservedWord(word)
                                    || BuiltinFunctions.contains(word.toUpperCase(Locale.ROOT)));
                    if (!known) {
                        return true;
                    }
                }
                i = end;
            } else {
                i++;
            }
        }
        return false;
    }

    private static boolean followedByParenthesis(String text, int at) {
        int j = at;
        while (j < text.length() && text.charAt(j) == ' ') {
            j++; // a stored function may be called with a space before its parenthesis
        }
        return j < text.length() && text.charAt(j) == '(';
    }

    private static boolean isWordStart(char c) {
        return Character.isLetter(c) || c == '_' || c == '@' || c == '$';
    }

    private static int wordEnd(String text, int from) {
        int i = from;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '@')) {
                break;
            }
            i++;
        }
        return i;
    }
}
