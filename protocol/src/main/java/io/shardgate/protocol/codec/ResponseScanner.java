package io.shardgate.protocol.codec;

import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;

/**
 * Finds where a server's responses end in a stream of raw MySQL frames, without decoding rows.
 *
 * <p>Design note. A passthrough relay forwards the backend's bytes to the client exactly as they
 * arrive (zero copy), yet it must know when a response is complete: to release or reuse the
 * backend connection, to send the next pipelined command, and to learn the final status flags
 * (transaction open, more results). This scanner walks frame headers and looks only at the first
 * byte of a packet, and at the whole payload only for the few small packets that carry state (OK,
 * ERR, EOF, column count, COM_STMT_PREPARE_OK). {@link #scan} returns how far the bytes may be
 * forwarded; bytes of a state-carrying packet that has not fully arrived are held back by the
 * caller and offered again with the next read. Row packets, even 16 MiB ones, stream through.
 *
 * <p>Threading: one instance per backend connection, used on that connection's event loop only.
 */
public final class ResponseScanner {

    /** What a command makes the server answer; decides the states a response walks through. */
    public enum Response {
        /** COM_QUERY, COM_STMT_EXECUTE: OK, ERR, LOCAL INFILE request or result sets, maybe several. */
        RESULT_SET,
        /**
         * COM_STMT_EXECUTE with a cursor type flag: as {@link #RESULT_SET}, except that the server
         * may open a cursor instead of sending rows (see {@link #opensCursor}).
         */
        RESULT_SET_OR_CURSOR,
        /** COM_STMT_FETCH: rows of an open cursor, then a terminator. */
        ROWS,
        /** COM_STMT_PREPARE: COM_STMT_PREPARE_OK, parameter and column definitions. */
        PREPARE,
        /** COM_FIELD_LIST: column definitions up to a terminator. */
        FIELD_LIST,
        /** A single OK, ERR or EOF packet (COM_PING, COM_INIT_DB, COM_SET_OPTION, ...). */
        SINGLE,
        /** COM_STATISTICS: one human-readable string packet (or ERR). */
        STATISTICS
    }

    /** Receives the events found while scanning; called on the scanning thread. */
    public interface Listener {
        /**
         * A response is complete. {@code statusFlags} are the server status flags of its final
         * OK/EOF packet, or those last seen when it ended with an ERR ({@code error} true).
         */
        void responseComplete(int statusFlags, boolean error);

        /** The server asked for a LOCAL INFILE upload: the client's next packets are file data. */
        default void localInfileRequested() {}

        /**
         * A COM_STMT_PREPARE_OK arrived whole in {@code in} with its payload at {@code payload}
         * (statement id int&lt;4&gt; at {@code payload + 1}); the listener may rewrite the statement
         * id in place before the bytes are relayed.
         */
        default void prepareOk(ByteBuf in, int payload) {}
    }

    private enum Expect {
        IDLE,
        FIRST,
        COLUMN_DEFS,
        COLUMN_DEFS_EOF,
        ROWS,
        PREPARE_PARAMS,
        PREPARE_PARAMS_EOF,
        PREPARE_COLUMNS,
        PREPARE_COLUMNS_EOF,
        FIELD_LIST
    }

    private static final int MAX_FRAME = 0xFFFFFF;
    private static final int OK = 0x00;
    private static final int LOCAL_INFILE = 0xFB;
    private static final int EOF = 0xFE;
    private static final int ERR = 0xFF;
    private static final int SERVER_MORE_RESULTS_EXISTS = 0x0008;
    private static final int SERVER_STATUS_CURSOR_EXISTS = 0x0040;

    private final boolean deprecateEof;
    private final Listener listener;
    private final ArrayDeque<Response> queued = new ArrayDeque<>();

    private Response current;
    private Expect expect = Expect.IDLE;
    private int statusFlags;
    /** Warning count of the packet that ended the last result of the response (its statement's). */
    private int warnings;
    /** Status flags when the response in progress started. */
    private int statusBefore;

    private long insertId;
    /** Rows of the response in progress or last completed (every result set of it). */
    private long rows;
    /** Affected rows of the OK packets of the response in progress or last completed. */
    private long affectedRows;
    /** Results (result sets and OKs) of the response in progress or last completed. */
    private int results;
    /** Of {@link #results}, those that were an OK rather than a result set. */
    private int okResults;
    /** Definitions still to come in the COLUMN_DEFS / PREPARE_* states. */
    private int remaining;
    /** Columns announced by COM_STMT_PREPARE_OK, sent after the parameter definitions. */
    private int prepareColumns;
    /** Payload bytes of the current frame not yet passed. */
    private int skip;
    /** The frame being passed has length 0xFFFFFF: the next frame continues the same packet. */
    private boolean continuation;
    /** See {@link #pauseAfterResponse}. */
    private boolean pauseAfterResponse;
    /** A response completed in this scan while pausing: stop at the next packet. */
    private boolean paused;

    /**
     * @param deprecateEof whether CLIENT_DEPRECATE_EOF was negotiated on this connection
     * @param listener receives completions, called from within {@link #scan}
     */
    public ResponseScanner(boolean deprecateEof, Listener listener) {
        this.deprecateEof = deprecateEof;
        this.listener = listener;
    }

    /** Announces the response to a command just sent; responses complete in the order expected. */
    public void expect(Response response) {
        queued.add(response);
        if (expect == Expect.IDLE && skip == 0) {
            startNext();
        }
    }

    /**
     * While on, {@link #scan} stops right after a response completes, so that the bytes of the
     * next one (already read with it) can go elsewhere: the router's own command's response, then
     * the client's statement's, sent together.
     */
    public void pauseAfterResponse(boolean on) {
        pauseAfterResponse = on;
    }

    /** True when every expected response is complete. */
    public boolean idle() {
        return expect == Expect.IDLE && skip == 0 && !continuation;
    }

    /** Last insert id of the OK that ended the last response (0 when it ended otherwise). */
    public long insertId() {
        return insertId;
    }

    /** Rows the last response sent (0 when it sent none); counts packets, not decoded rows. */
    public long rows() {
        return rows;
    }

    /** Affected rows of the OK packets that ended the last response's results. */
    public long affectedRows() {
        return affectedRows;
    }

    /** Results the last response held (a multi-statement or a CALL sends several; an ERR ends without one). */
    public int results() {
        return results;
    }

    /** Of {@link #results()}, those that were an OK rather than a result set. */
    public int okResults() {
        return okResults;
    }

    /**
     * Warnings the last response's statement raised: the warning count of the OK or EOF that ended
     * its last result (0 when it ended in an ERR or sent no such packet).
     */
    public int warnings() {
        return warnings;
    }

    /** Server status flags of the last OK or EOF packet seen. */
    public int statusFlags() {
        return statusFlags;
    }

    /** Sets the status flags known from the handshake or the authentication OK packet. */
    public void statusFlags(int flags) {
        this.statusFlags = flags;
    }

    /**
     * Scans the readable bytes of {@code in} from its reader index; neither retains nor releases
     * it and does not move its indexes.
     *
     * @return the index up to which the bytes may be forwarded; bytes after it start a packet that
     *     must be offered again, completed by the next read
     * @throws UnexpectedResponseException when bytes arrive while no response is expected
     */
    public int scan(ByteBuf in) {
        int i = in.readerIndex();
        int end = in.writerIndex();
        while (i < end) {
            if (skip > 0) {
                int n = Math.min(skip, end - i);
                i += n;
                skip -= n;
                continue;
            }
            if (paused) {
                break;
            }
            if (end - i < 4) {
                break;
            }
            int length = in.getUnsignedMediumLE(i);
            if (continuation) {
                // a later frame of a packet >= 16 MiB: its bytes are payload, never a header byte
                continuation = length == MAX_FRAME;
                i += 4;
                skip = length;
                continue;
            }
            if (expect == Expect.IDLE) {
                throw new UnexpectedResponseException("server sent a packet while no response was expected (header 0x"
                        + (length > 0 && end - i > 4 ? Integer.toHexString(in.getUnsignedByte(i + 4)) : "--")
                        + ", length " + length + ")");
            }
            int needed = length == 0 ? 4 : (needsWholePacket(in, i, length) ? 4 + length : 5);
            if (end - i < needed) {
                break;
            }
            continuation = length == MAX_FRAME;
            onPacket(in, i + 4, length);
            i += 4;
            skip = length;
        }
        paused = false;
        return i;
    }

    private boolean needsWholePacket(ByteBuf in, int frameStart, int length) {
        if (end(in) - frameStart < 5) {
            // the first payload byte decides; ask for it first
            return false;
        }
        int first = in.getUnsignedByte(frameStart + 4);
        switch (expect) {
            case COLUMN_DEFS:
                return false;
            case PREPARE_PARAMS:
            case PREPARE_COLUMNS:
                // with CLIENT_DEPRECATE_EOF the last definition ends the response: it completes
                // only once all of it has arrived
                return deprecateEof && remaining == 1 && (expect == Expect.PREPARE_COLUMNS || prepareColumns == 0);
            case ROWS:
            case FIELD_LIST:
                return first == ERR || isTerminator(first, length);
            default:
                return true;
        }
    }

    private static int end(ByteBuf in) {
        return in.writerIndex();
    }

    /** In a row stream, 0xFE starts a terminator only in a short packet; else it is lenenc data. */
    private boolean isTerminator(int first, int length) {
        return first == EOF && (deprecateEof ? length < MAX_FRAME : length < 9);
    }

    private void onPacket(ByteBuf in, int payload, int length) {
        int first = length == 0 ? -1 : in.getUnsignedByte(payload);
        if (first == ERR
                && expect != Expect.COLUMN_DEFS
                && expect != Expect.PREPARE_PARAMS
                && expect != Expect.PREPARE_COLUMNS) {
            if (current == Response.RESULT_SET || current == Response.RESULT_SET_OR_CURSOR) {
                statusFlags = statusAfterError(statusBefore, statusFlags);
            }
            warnings = 0;
            complete(true);
            return;
        }
        switch (expect) {
            case FIRST -> onFirst(in, payload, length, first);
            case COLUMN_DEFS -> {
                if (--remaining == 0) {
                    expect = deprecateEof ? Expect.ROWS : Expect.COLUMN_DEFS_EOF;
                }
            }
            case COLUMN_DEFS_EOF -> {
                statusFlags = in.getUnsignedShortLE(payload + 3);
                if (opensCursor(current, statusFlags)) {
                    complete(false); // rows come with COM_STMT_FETCH
                } else {
                    expect = Expect.ROWS;
                }
            }
            case ROWS -> {
                if (isTerminator(first, length)) {
                    statusFlags = terminatorStatus(in, payload, length);
                    warnings = terminatorWarnings(in, payload, length);
                    endOfResult();
                } else {
                    rows++;
                }
            }
            case FIELD_LIST -> {
                if (isTerminator(first, length)) {
                    statusFlags = terminatorStatus(in, payload, length);
                    complete(false);
                }
            }
            case PREPARE_PARAMS -> {
                if (--remaining == 0) {
                    if (!deprecateEof) {
                        expect = Expect.PREPARE_PARAMS_EOF;
                    } else {
                        prepareColumnsOrComplete();
                    }
                }
            }
            case PREPARE_PARAMS_EOF -> {
                statusFlags = in.getUnsignedShortLE(payload + 3);
                prepareColumnsOrComplete();
            }
            case PREPARE_COLUMNS -> {
                if (--remaining == 0) {
                    if (!deprecateEof) {
                        expect = Expect.PREPARE_COLUMNS_EOF;
                    } else {
                        complete(false);
                    }
                }
            }
            case PREPARE_COLUMNS_EOF -> {
                statusFlags = in.getUnsignedShortLE(payload + 3);
                complete(false);
            }
            case IDLE -> throw new IllegalStateException("unreachable: checked by scan");
        }
    }

    private void onFirst(ByteBuf in, int payload, int length, int first) {
        switch (current) {
            case SINGLE -> {
                if (first == OK && length >= 7) {
                    statusFlags = okStatus(in, payload);
                    warnings = okWarnings(in, payload);
                } else if (first == EOF && length >= 5) {
                    statusFlags = in.getUnsignedShortLE(payload + 3);
                    warnings = in.getUnsignedShortLE(payload + 1);
                }
                complete(false);
            }
            case STATISTICS -> complete(false);
            case PREPARE -> {
                // COM_STMT_PREPARE_OK: 0x00, statement id int<4>, columns int<2>, params int<2>
                listener.prepareOk(in, payload);
                prepareColumns = in.getUnsignedShortLE(payload + 5);
                remaining = in.getUnsignedShortLE(payload + 7);
                if (remaining > 0) {
                    expect = Expect.PREPARE_PARAMS;
                } else {
                    prepareColumnsOrComplete();
                }
            }
            default -> {
                if (first == OK) {
                    statusFlags = okStatus(in, payload);
                    warnings = okWarnings(in, payload);
                    affectedRows += lengthEncodedIntAt(in, payload + 1);
                    insertId = lengthEncodedIntAt(in, payload + 1 + lengthEncodedSizeAt(in, payload + 1));
                    okResults++;
                    endOfResult();
                } else if (first == LOCAL_INFILE) {
                    // the OK or ERR that ends the upload comes next, still in state FIRST
                    listener.localInfileRequested();
                } else if (first == EOF) {
                    statusFlags = terminatorStatus(in, payload, length);
                    warnings = terminatorWarnings(in, payload, length);
                    endOfResult();
                } else if (length == 0) {
                    throw new UnexpectedResponseException("server sent an empty packet where a result starts");
                } else {
                    remaining = (int) lengthEncodedIntAt(in, payload);
                    expect = remaining == 0 ? Expect.ROWS : Expect.COLUMN_DEFS;
                }
            }
        }
    }

    /**
     * Whether the EOF after a result set's column definitions, with these status flags, says that a
     * cursor was opened, so that no rows follow. SERVER_STATUS_CURSOR_EXISTS alone does not say it:
     * MariaDB also sets it on the result sets a stored procedure sends while one of its own cursors
     * is open (a SELECT in a FETCH loop), and their rows follow. Only a COM_STMT_EXECUTE that asked
     * for a cursor gets one, and then as its only result (a CALL's result sets are never cursors
     * and always announce more results: the CALL's own OK).
     */
    static boolean opensCursor(Response response, int statusFlags) {
        return response == Response.RESULT_SET_OR_CURSOR
                && (statusFlags & SERVER_STATUS_CURSOR_EXISTS) != 0
                && (statusFlags & SERVER_MORE_RESULTS_EXISTS) == 0;
    }

    /**
     * The status flags a result response ending in ERR leaves, from those before it and those last
     * seen in it: an ERR announces no more results, and a cursor a stored procedure had open while
     * it sent result sets was closed when the procedure ended (a cursor opened before stays).
     */
    static int statusAfterError(int before, int lastSeen) {
        return (lastSeen & ~(SERVER_MORE_RESULTS_EXISTS | SERVER_STATUS_CURSOR_EXISTS))
                | (before & SERVER_STATUS_CURSOR_EXISTS);
    }

    private void prepareColumnsOrComplete() {
        if (prepareColumns > 0) {
            remaining = prepareColumns;
            prepareColumns = 0;
            expect = Expect.PREPARE_COLUMNS;
        } else {
            complete(false);
        }
    }

    private void endOfResult() {
        results++;
        if ((statusFlags & SERVER_MORE_RESULTS_EXISTS) != 0) {
            expect = Expect.FIRST;
        } else {
            complete(false);
        }
    }

    private void complete(boolean error) {
        paused = pauseAfterResponse;
        expect = Expect.IDLE;
        current = null;
        startNext();
        listener.responseComplete(statusFlags, error);
    }

    private void startNext() {
        Response next = queued.poll();
        if (next != null) {
            current = next;
            statusBefore = statusFlags;
            warnings = 0;
            insertId = 0;
            rows = 0;
            affectedRows = 0;
            results = 0;
            okResults = 0;
            expect = next == Response.ROWS
                    ? Expect.ROWS
                    : (next == Response.FIELD_LIST ? Expect.FIELD_LIST : Expect.FIRST);
        }
    }

    /** Status flags of an OK packet: after the header and two length-encoded integers. */
    private static int okStatus(ByteBuf in, int payload) {
        int at = payload + 1;
        at += lengthEncodedSizeAt(in, at);
        at += lengthEncodedSizeAt(in, at);
        return in.getUnsignedShortLE(at);
    }

    /** Warning count of an OK packet: right after its status flags. */
    private static int okWarnings(ByteBuf in, int payload) {
        int at = payload + 1;
        at += lengthEncodedSizeAt(in, at);
        at += lengthEncodedSizeAt(in, at);
        return in.getUnsignedShortLE(at + 2);
    }

    /** Warning count of a 0xFE terminator: an OK packet with CLIENT_DEPRECATE_EOF, else an EOF packet. */
    private int terminatorWarnings(ByteBuf in, int payload, int length) {
        if (deprecateEof && length > 5) {
            return okWarnings(in, payload);
        }
        return length >= 5 ? in.getUnsignedShortLE(payload + 1) : 0;
    }

    /** Status of a 0xFE terminator: an OK packet with CLIENT_DEPRECATE_EOF, else an EOF packet. */
    private int terminatorStatus(ByteBuf in, int payload, int length) {
        if (deprecateEof && length > 5) {
            return okStatus(in, payload);
        }
        return length >= 5 ? in.getUnsignedShortLE(payload + 3) : statusFlags;
    }

    /** Size in bytes of the length-encoded integer at {@code index}, prefix included. */
    private static int lengthEncodedSizeAt(ByteBuf in, int index) {
        int first = in.getUnsignedByte(index);
        return first < 0xFB ? 1 : first == 0xFC ? 3 : first == 0xFD ? 4 : first == 0xFE ? 9 : 1;
    }

    /** The length-encoded integer at {@code index} (a column count, so 0xFB never appears). */
    private static long lengthEncodedIntAt(ByteBuf in, int index) {
        int first = in.getUnsignedByte(index);
        if (first < 0xFB) {
            return first;
        }
        return switch (first) {
            case 0xFC -> in.getUnsignedShortLE(index + 1);
            case 0xFD -> in.getUnsignedMediumLE(index + 1);
            case 0xFE -> in.getLongLE(index + 1);
            default ->
                throw new UnexpectedResponseException("invalid length-encoded integer 0x" + Integer.toHexString(first));
        };
    }
}
