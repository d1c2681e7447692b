package io.shardgate.merge;

import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;

/**
 * The shard responses to one statement cannot be merged: they disagree in shape (column counts or
 * types, an OK beside a result set) or contain a packet a complete response cannot hold (1105); or
 * the merge met a value it cannot compute as MySQL would (1235: refused rather than guessed); or a
 * computed value overflows its type (1690, as MySQL answers). The session answers the client with
 * {@link #toErr()}.
 */
public final class MergeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient ErrorCode code;

    public MergeException(String message) {
        this(ErrorCode.ER_UNKNOWN_ERROR, message);
    }

    private MergeException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    /** A value the merge cannot compute exactly as MySQL would: ERR 1235 with {@code what}. */
    static MergeException unsupported(String what) {
        return new MergeException(ErrorCode.ER_NOT_SUPPORTED_YET, what);
    }

    /**
     * ORDER BY n past the client's columns (the shards accepted it: they also return hidden
     * columns): MySQL's ERR 1054.
     */
    static MergeException unknownOrderColumn(int position) {
        return new MergeException(ErrorCode.ER_BAD_FIELD_ERROR, "Unknown column '" + position + "' in 'ORDER BY'");
    }

    /** A computed value outside its type's range: MySQL's ERR 1690. */
    static MergeException outOfRange(String message) {
        return new MergeException(ErrorCode.ER_DATA_OUT_OF_RANGE, message);
    }

    /** The ERR packet the client gets. */
    public ErrPacket toErr() {
        String message;
        if (code.code() == ErrorCode.ER_NOT_SUPPORTED_YET.code()) {
            message = "This version of Shardgate doesn't yet support '" + getMessage() + "'";
        } else if (code.code() == ErrorCode.ER_DATA_OUT_OF_RANGE.code()
                || code.code() == ErrorCode.ER_BAD_FIELD_ERROR.code()) {
            message = getMessage();
        } else {
            message = "cannot merge the shards' results: " + getMessage();
        }
        return new ErrPacket(code.code(), code.sqlState(), message);
    }
}
