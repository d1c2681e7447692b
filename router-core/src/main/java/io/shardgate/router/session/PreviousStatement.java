package io.shardgate.router.session;

import io.shardgate.protocol.type.Command;

/**
 * What {@code FOUND_ROWS()} and {@code ROW_COUNT()} read: the outcome of the session's previous
 * statement. In MySQL it lives in the server session that ran that statement; through the router
 * the previous statement may have run on several shards, or on a pooled connection that another
 * client has used since. So a statement reading either is answered exactly or refused:
 * <ul>
 *   <li>it runs on the backend when the connection that ran the previous statement has been held by
 *       this session ever since (a pinned session: SQL_CALC_FOUND_ROWS, a transaction...), where the
 *       server's own value is the right one;
 *   <li>a plain {@code SELECT FOUND_ROWS()} / {@code SELECT ROW_COUNT()} is answered by the router
 *       when it knows the value: {@code ROW_COUNT()} after a statement it merged from several shards
 *       (the merged affected rows of a write; -1 after a read), and after a statement of one
 *       response on one shard ({@link #rowCountAfter}: the OK's affected rows, -1 after a result
 *       set or an error), even when the router's own warnings check ran there since;
 *   <li>anything else is refused (1235), never answered with another statement's value.
 * </ul>
 * The statement in flight reads the outcome its predecessor left ({@link #commandStarts}), and
 * the outcome stays unknown unless a path that knows it records it: a path that forgets makes a
 * refusal, never a wrong value. Event-loop confined, like its session.
 */
public final class PreviousStatement {
    /** A value the router does not know. */
    public static final long UNKNOWN = Long.MIN_VALUE;

    private static final SelectOfValue SELECT_ROW_COUNT = new SelectOfValue("ROW_COUNT\\s*\\(\\s*\\)");
    private static final SelectOfValue SELECT_FOUND_ROWS = new SelectOfValue("FOUND_ROWS\\s*\\(\\s*\\)");

    /** The outcome being recorded: the statement in flight's, once it ends. */
    private Object lease;

    private long hold;
    private long rowCount = UNKNOWN;
    private long foundRows = UNKNOWN;
    /** A statement is in flight and has recorded nothing yet. */
    private boolean recording;

    /** The outcome the statement in flight reads: its predecessor's. */
    private Object readLease;

    private long readHold;
    private long readRowCount = UNKNOWN;
    private long readFoundRows = UNKNOWN;

    /**
     * A client command starts. A statement (any command but those that leave FOUND_ROWS() and
     * ROW_COUNT() as they were: COM_STMT_PREPARE, COM_STMT_CLOSE, COM_STMT_RESET,
     * COM_STMT_SEND_LONG_DATA) reads what the last one left and leaves nothing known until it
     * records its own outcome; another command records nothing.
     */
    public void commandStarts(Command command) {
        switch (command) {
            case COM_PING -> pinged();
            case COM_STMT_PREPARE, COM_STMT_CLOSE, COM_STMT_RESET, COM_STMT_SEND_LONG_DATA, COM_QUIT ->
                recording = false;
            default -> statementStarts();
        }
    }

    /**
     * MariaDB sets ROW_COUNT() to 0 at a COM_PING and keeps FOUND_ROWS() (a driver's isValid() between a
     * failed INSERT and {@code SELECT ROW_COUNT()} makes it 0, not -1). The router answers pings
     * itself, so the server's ROW_COUNT() is stale: the router knows 0, and no longer lets the server
     * answer (FOUND_ROWS() stays answerable only where the router knows it).
     */
    private void pinged() {
        recording = false;
        lease = null;
        rowCount = 0;
    }

    private void statementStarts() {
        readLease = lease;
        readHold = hold;
        readRowCount = rowCount;
        readFoundRows = foundRows;
        lease = null;
        rowCount = UNKNOWN;
        foundRows = UNKNOWN;
        recording = true;
    }

    /**
     * The statement in flight ran whole on the connection {@code lease} holds, at its epoch {@code
     * hold} (changed by a new borrow or a statement of the router's own): that server session knows
     * its outcome (the router does not).
     */
    public void ranOn(Object lease, long hold, long rowCount) {
        if (recording) {
            recording = false;
            this.lease = lease;
            this.hold = hold;
            this.rowCount = rowCount;
        }
    }

    /**
     * The ROW_COUNT() a server leaves after a statement whose response held {@code results} results,
     * {@code okResults} of them OKs with {@code affectedRows} in all, or an ERR ({@code error}):
     * -1 after an error or a result set (also an empty one), the OK's affected rows otherwise
     * (INSERT, UPDATE, DELETE, DDL's 0, {@code CALL}'s last statement, {@code SELECT ... INTO});
     * unknown after several results (a multi-statement, a CALL that sent result sets), whose last
     * statement alone sets it.
     */
    public static long rowCountAfter(boolean error, int results, int okResults, long affectedRows) {
        if (error) {
            return -1;
        }
        if (results != 1) {
            return UNKNOWN;
        }
        return okResults == 1 ? affectedRows : -1;
    }

    /** The router answered the statement in flight itself (a merge): these are its outcome. */
    public void answered(long foundRows, long rowCount) {
        if (recording) {
            recording = false;
            this.foundRows = foundRows;
            this.rowCount = rowCount;
        }
    }

    /**
     * The statement in flight (GET DIAGNOSTICS) leaves FOUND_ROWS() and ROW_COUNT() as its
     * predecessor left them, on the server too: the predecessor's outcome stays the session's.
     */
    public void unchanged() {
        if (recording) {
            recording = false;
            lease = readLease;
            hold = readHold;
            rowCount = readRowCount;
            foundRows = readFoundRows;
        }
    }

    /**
     * Whether the statement in flight may read FOUND_ROWS()/ROW_COUNT() on the connection {@code
     * lease} holds ({@code holding}, at epoch {@code hold}): the previous statement ran there, and
     * since then the connection has not left the session nor run a statement of the router's.
     */
    public boolean serverKnows(Object lease, boolean holding, long hold) {
        return holding && readLease != null && readLease == lease && readHold == hold;
    }

    /** The previous statement's ROW_COUNT() as the router knows it, or {@link #UNKNOWN}. */
    public long rowCount() {
        return readRowCount;
    }

    /** The previous statement's FOUND_ROWS() as the router knows it, or {@link #UNKNOWN}. */
    public long foundRows() {
        return readFoundRows;
    }

    /** The answer's column name when {@code sql} only selects ROW_COUNT(), else null. */
    public static String selectRowCount(String sql) {
        return SELECT_ROW_COUNT.column(sql);
    }

    /** The answer's column name when {@code sql} only selects FOUND_ROWS(), else null. */
    public static String selectFoundRows(String sql) {
        return SELECT_FOUND_ROWS.column(sql);
    }

    /** COM_RESET_CONNECTION / COM_CHANGE_USER: a new server session, nothing carried over. */
    public void reset() {
        lease = null;
        readLease = null;
        rowCount = readRowCount = foundRows = readFoundRows = UNKNOWN;
        recording = false;
    }
}
