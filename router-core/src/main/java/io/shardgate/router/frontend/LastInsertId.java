package io.shardgate.router.frontend;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A session's LAST_INSERT_ID() while it comes from the router's key generation: the first key
 * generated for the session's last INSERT into a table with {@code key_generation}. The router
 * answers {@code SELECT LAST_INSERT_ID()} (and {@code @@identity}, {@code @@last_insert_id})
 * itself then, since the shards never saw those keys as generated. An INSERT that runs on a backend
 * unchanged hands LAST_INSERT_ID() back to that backend's session (it may have generated an
 * AUTO_INCREMENT value); COM_RESET_CONNECTION and COM_CHANGE_USER clear it, as MySQL does.
 * Event-loop confined.
 */
final class LastInsertId {
    private static final Pattern SELECT = Pattern.compile(
            "^\\s*SELECT\\s+(LAST_INSERT_ID\\s*\\(\\s*\\)|@@(?:SESSION\\.)?(?:IDENTITY|LAST_INSERT_ID))"
                    + "(?:\\s+(?:AS\\s+)?(`(?:[^`]|``)+`|[A-Za-z_$][A-Za-z0-9_$]*|'[^'\\\\]*'|\"[^\"\\\\]*\"))?"
                    + "\\s*;?\\s*$",
            Pattern.CASE_INSENSITIVE);

    /** The router's value; 0 when the backend's session holds LAST_INSERT_ID(). */
    private long generated;

    /** An INSERT generated keys: {@code first} is now LAST_INSERT_ID(). */
    void generated(long first) {
        generated = first;
    }

    /** An INSERT ran on a backend unchanged: from now on that server session knows best. */
    void backendInsert() {
        generated = 0;
    }

    void reset() {
        generated = 0;
    }

    long value() {
        return generated;
    }

    /**
     * The column name of the answer when {@code sql} only reads LAST_INSERT_ID() and the router
     * holds its value (the expression as written, or its alias); null otherwise.
     */
    String column(String sql) {
        if (generated == 0) {
            return null;
        }
        Matcher m = SELECT.matcher(sql);
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
