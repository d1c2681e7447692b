package io.shardgate.sharding.digest;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * MySQL's statement modifiers ({@code UPDATE LOW_PRIORITY IGNORE}, {@code DELETE QUICK}, {@code
 * INSERT DELAYED}, {@code SELECT SQL_CALC_FOUND_ROWS STRAIGHT_JOIN ...}). Calcite's parser does not
 * know them and reads them as names: {@code UPDATE IGNORE t} as table {@code IGNORE} aliased {@code
 * t}, {@code SELECT SQL_CALC_FOUND_ROWS a} as a column aliased {@code a}. So before parsing they are
 * blanked out of the normalized text with spaces of the same length (parser columns stay offsets
 * into the text, and the SQL sent to shards keeps them) and kept as facts of the statement. The
 * planner and the result cache's table finder both read the text through this one definition, so
 * neither can take a modifier for a table name.
 * {@code DISTINCTROW} becomes {@code DISTINCT}, its synonym.
 *
 * <p>Modifiers are recognised right after each {@code SELECT}, {@code UPDATE}, {@code DELETE},
 * {@code INSERT} and {@code REPLACE} keyword outside back-quoted names (the normalized text has no
 * string literals left), only in the positions MySQL's grammar gives them.
 */
public record StatementModifiers(String parseText, Set<Modifier> found) {

    /** A modifier, with the statements that take it. */
    public enum Modifier {
        LOW_PRIORITY,
        HIGH_PRIORITY,
        DELAYED,
        QUICK,
        IGNORE,
        STRAIGHT_JOIN,
        SQL_SMALL_RESULT,
        SQL_BIG_RESULT,
        SQL_BUFFER_RESULT,
        SQL_CACHE,
        SQL_NO_CACHE,
        SQL_CALC_FOUND_ROWS,
        DISTINCTROW
    }

    private static final Map<String, Set<Modifier>> BY_VERB = Map.of(
            "SELECT",
            EnumSet.of(
                    Modifier.HIGH_PRIORITY,
                    Modifier.STRAIGHT_JOIN,
                    Modifier.SQL_SMALL_RESULT,
                    Modifier.SQL_BIG_RESULT,
                    Modifier.SQL_BUFFER_RESULT,
                    Modifier.SQL_CACHE,
                    Modifier.SQL_NO_CACHE,
                    Modifier.SQL_CALC_FOUND_ROWS,
                    Modifier.DISTINCTROW),
            "UPDATE",
            EnumSet.of(Modifier.LOW_PRIORITY, Modifier.IGNORE),
            "DELETE",
            EnumSet.of(Modifier.LOW_PRIORITY, Modifier.QUICK, Modifier.IGNORE),
            "INSERT",
            EnumSet.of(Modifier.LOW_PRIORITY, Modifier.DELAYED, Modifier.HIGH_PRIORITY, Modifier.IGNORE),
            "REPLACE",
            EnumSet.of(Modifier.LOW_PRIORITY, Modifier.DELAYED));

    /** The text with every modifier blanked, and the modifiers found. */
    public static StatementModifiers strip(String text) {
        StringBuilder out = null;
        Set<Modifier> found = EnumSet.noneOf(Modifier.class);
        int i = 0;
        int n = text.length();
        Set<Modifier> allowed = null; // the modifiers the previous keyword takes, while they continue
        while (i < n) {
            char c = text.charAt(i);
            if (c == '`') {
                int close = text.indexOf('`', i + 1);
                i = close < 0 ? n : close + 1;
                allowed = null;
                continue;
            }
            if (!isWordChar(c)) {
                i++;
                continue;
            }
            int start = i;
            while (i < n && isWordChar(text.charAt(i))) {
                i++;
            }
            if (start > 0 && (text.charAt(start - 1) == '.' || text.charAt(start - 1) == '@')) {
                allowed = null; // t.ignore, @@select...: a name, not a keyword
                continue;
            }
            String word = text.substring(start, i).toUpperCase(Locale.ROOT);
            Modifier modifier = allowed == null ? null : modifier(word);
            if (modifier != null && allowed.contains(modifier)) {
                found.add(modifier);
                if (out == null) {
                    out = new StringBuilder(text);
                }
                String blank = modifier == Modifier.DISTINCTROW ? "DISTINCT   " : " ".repeat(i - start);
                out.replace(start, i, blank);
                continue;
            }
            if (allowed != null
                    && BY_VERB.get("SELECT") == allowed
                    && (word.equals("ALL") || word.equals("DISTINCT"))) {
                continue; // SELECT DISTINCT SQL_NO_CACHE ...: modifiers may follow
            }
            allowed = BY_VERB.get(word);
        }
        return new StatementModifiers(out == null ? text : out.toString(), found);
    }

    private static Modifier modifier(String word) {
        try {
            return Modifier.valueOf(word);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }
}
