package io.shardgate.router.lease;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.netty.buffer.ByteBuf;

/**
 * The rows of a framed text-protocol answer to one of the router's own statements ({@code SELECT
 * LAST_INSERT_ID()}, the diagnostics peek): after the column count and the definitions come an EOF
 * (unless CLIENT_DEPRECATE_EOF), the rows, then an EOF or OK (0xFE). Hand-written: the router reads
 * only these shapes of its own statements, never a client's result. Neither retains nor releases
 * what it reads.
 */
final class SingleValue {
    /** {@link #firstRow}: the answer is a result set without rows. */
    static final int NO_ROW = -1;
    /** {@link #firstRow}: the answer is an error, or no result set. */
    static final int NOT_A_RESULT_SET = -2;

    private SingleValue() {}

    /** The offset of the first row's packet header, or {@link #NO_ROW} / {@link #NOT_A_RESULT_SET}. */
    static int firstRow(ByteBuf framed) {
        int i = framed.readerIndex();
        int packet = 0;
        int columns = -1;
        while (i + 4 <= framed.writerIndex()) {
            int length = framed.getUnsignedMediumLE(i);
            int first = length > 0 ? framed.getUnsignedByte(i + 4) : -1;
            if (packet == 0) {
                if (first < 1 || first >= 0xFB) {
                    return NOT_A_RESULT_SET;
                }
                columns = first;
            } else if (packet > columns && !(first == 0xFE && length < 9)) {
                return i; // a row (or an error, which its reader tells)
            }
            packet++;
            i += 4 + length;
        }
        return columns < 0 ? NOT_A_RESULT_SET : NO_ROW;
    }

    /**
     * The first row's first column as an unsigned decimal (in a {@code long}), or null when the
     * answer has no such row or the value is NULL or no number.
     */
    static Long unsignedLong(ByteBuf framed) {
        int row = firstRow(framed);
        if (row < 0) {
            return null;
        }
        int length = framed.getUnsignedMediumLE(row);
        int first = framed.getUnsignedByte(row + 4); // a length-encoded string of up to 20 digits (0xFB: NULL)
        if (first < 1 || first > 20 || length < 1 + first) {
            return null;
        }
        try {
            return Long.parseUnsignedLong(framed.toString(row + 5, first, US_ASCII));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
