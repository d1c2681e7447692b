package io.shardgate.sharding.digest;

/**
 * A construct the router reacts to before or besides planning, noted by the digest's one pass over
 * the client's text ({@link Digest#has(Mark)}), so that no later step scans that text again to find
 * it: a statement without marks goes from its digest to its plan and effects with no other scan.
 * Marks are words as the lexer sees them (never inside strings or comments, any letter case, quoted
 * or not only where said); a mark says a later step must look closer, not that it will act.
 */
public enum Mark {
    /** {@code @name}: session state of the backend connection (pins it). */
    USER_VARIABLE,
    /** MariaDB's {@code /*M!...*}{@code /}: code to MariaDB that the digest reads as a comment. */
    MARIADB_EXECUTABLE_COMMENT,
    /** {@code GET_LOCK}, {@code RELEASE_LOCK}, {@code IS_USED_LOCK}: named locks live in a connection. */
    NAMED_LOCK,
    /** {@code SQL_CALC_FOUND_ROWS}. */
    SQL_CALC_FOUND_ROWS,
    /** {@code FOUND_ROWS}. */
    FOUND_ROWS,
    /** {@code ROW_COUNT}. */
    ROW_COUNT,
    /** {@code TEMPORARY}. */
    TEMPORARY,
    /** {@code LAST_INSERT_ID}. */
    LAST_INSERT_ID,
    /** {@code CONNECTION_ID}: the router answers with its own session id. */
    CONNECTION_ID,
    /** {@code PROCESSLIST}, back-quoted too: the router lists its own sessions. */
    PROCESSLIST,
    /** {@code @@warning_count} or {@code @@error_count} (any scope): diagnostics of the previous statement. */
    DIAGNOSTICS_COUNT,
    /** {@code @@identity} or {@code @@last_insert_id}: LAST_INSERT_ID() by another name. */
    IDENTITY_VARIABLE,
    /** {@code @@last_gtid} (any scope): the GTID of the server session's last commit. */
    LAST_GTID;

    int bit() {
        return 1 << ordinal();
    }

    /** The mark of a word (an unquoted identifier or keyword), or null. */
    static Mark ofWord(String upper) {
        return switch (upper) {
            case "GET_LOCK", "RELEASE_LOCK", "IS_USED_LOCK" -> NAMED_LOCK;
            case "SQL_CALC_FOUND_ROWS" -> SQL_CALC_FOUND_ROWS;
            case "FOUND_ROWS" -> FOUND_ROWS;
            case "ROW_COUNT" -> ROW_COUNT;
            case "TEMPORARY" -> TEMPORARY;
            case "LAST_INSERT_ID" -> LAST_INSERT_ID;
            case "CONNECTION_ID" -> CONNECTION_ID;
            case "PROCESSLIST" -> PROCESSLIST;
            default -> null;
        };
    }

    /** The words {@link #ofWord} knows, for the normalizer's lookup table. */
    static final String[] WORDS = {
        "GET_LOCK",
        "RELEASE_LOCK",
        "IS_USED_LOCK",
        "SQL_CALC_FOUND_ROWS",
        "FOUND_ROWS",
        "ROW_COUNT",
        "TEMPORARY",
        "LAST_INSERT_ID",
        "CONNECTION_ID",
        "PROCESSLIST"
    };
}
