package io.shardgate.protocol.type;

/**
 * Server status flags (SERVER_STATUS_flags_enum) carried by OK_Packet and EOF_Packet as int&lt;2&gt;.
 */
public final class ServerStatus {
    /** A transaction is active. */
    public static final int SERVER_STATUS_IN_TRANS = 1;
    /** Autocommit mode is on. */
    public static final int SERVER_STATUS_AUTOCOMMIT = 1 << 1;
    /** More result sets follow (multi-statement or stored procedure). */
    public static final int SERVER_MORE_RESULTS_EXISTS = 1 << 3;
    /** The query used a bad index. */
    public static final int SERVER_QUERY_NO_GOOD_INDEX_USED = 1 << 4;
    /** The query used no index. */
    public static final int SERVER_QUERY_NO_INDEX_USED = 1 << 5;
    /** COM_STMT_EXECUTE opened a read-only cursor; fetch rows with COM_STMT_FETCH. */
    public static final int SERVER_STATUS_CURSOR_EXISTS = 1 << 6;
    /** The last row of a cursor was sent. */
    public static final int SERVER_STATUS_LAST_ROW_SENT = 1 << 7;
    /** The current database was dropped. */
    public static final int SERVER_STATUS_DB_DROPPED = 1 << 8;
    /** sql_mode NO_BACKSLASH_ESCAPES is on. */
    public static final int SERVER_STATUS_NO_BACKSLASH_ESCAPES = 1 << 9;
    /** A prepared statement's result metadata changed since PREPARE. */
    public static final int SERVER_STATUS_METADATA_CHANGED = 1 << 10;
    /** The query was slow. */
    public static final int SERVER_QUERY_WAS_SLOW = 1 << 11;
    /** The result set holds OUT parameters of a stored procedure. */
    public static final int SERVER_PS_OUT_PARAMS = 1 << 12;
    /** The active transaction is read-only. */
    public static final int SERVER_STATUS_IN_TRANS_READONLY = 1 << 13;
    /** Session state changed; OK_Packet carries session state information. */
    public static final int SERVER_SESSION_STATE_CHANGED = 1 << 14;
    /** MariaDB: sql_mode ANSI_QUOTES is on. */
    public static final int SERVER_STATUS_ANSI_QUOTES = 1 << 15;

    private ServerStatus() {}
}
