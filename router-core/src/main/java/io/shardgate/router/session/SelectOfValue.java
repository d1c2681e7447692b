package io.shardgate.router.session;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A statement that only selects one session value, {@code SELECT <value> [[AS] alias][;]}: the
 * shape of the statements whose answer the router may make itself ({@code SELECT LAST_INSERT_ID()}
 * after a key it generated, {@code SELECT ROW_COUNT()} after a merge).
 */
final class SelectOfValue {
    private final Pattern pattern;

    /** @param value a regular expression (case-insensitive) of the value as it may be written */
    SelectOfValue(String value) {
        this.pattern = Pattern.compile(
                "^\\s*SELECT\\s+(" + value + ")"
                        + "(?:\\s+(?:AS\\s+)?(`(?:[^`]|``)+`|[A-Za-z_$][A-Za-z0-9_$]*|'[^'\\\\]*'|\"[^\"\\\\]*\"))?"
                        + "\\s*;?\\s*$",
                Pattern.CASE_INSENSITIVE);
    }

    /** The answer's column name when {@code sql} has this shape (the value as written, or its alias), else null. */
    String column(String sql) {
        Matcher m = pattern.matcher(sql);
        if (!m.matches()) {
            return null;
        }
        String alias = m.group(2);
        if (alias == null) {
            return m.group(1);
        }
        char quote = alias.charAt(0);
        if (quote == '`') {
            return alias.substring(1, alias.length() - 1).replace("``", "`");
        }
        return quote == '\'' || quote == '"' ? alias.substring(1, alias.length() - 1) : alias;
    }
}
