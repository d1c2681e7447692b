package io.shardgate.router.lease;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.netty.buffer.ByteBuf;

/**
 * The value of a framed text-protocol answer of one row and one column (the router's own {@code
 * SELECT LAST_INSERT_ID()}): after the column count and the definition come an EOF (unless
 * CLIENT_DEPRECATE_EOF), the row, then an EOF or OK (0xFE). Hand-written: the router reads only
 * this one shape of its own statements, never a client's result.
 */
final class SingleValue {
    private SingleValue() {}

    /**
     * The first row's first column as an unsigned decimal (in a {@code long}), or null when the
     * answer has no such row or the value is NULL or no number. Neither retains nor releases {@code framed}.
     */
    static Long unsignedLong(ByteBuf framed) {
        int i = framed.readerIndex();
        int packet = 0;
        int columns = -1;
        while (i + 4 <= framed.writerIndex()) {
            int length = framed.getUnsignedMediumLE(i);
            int payload = i + 4;
            int first = length > 0 ? framed.getUnsignedByte(payload) : -1;
            if (packet == 0) {
                if (first < 1 || first >= 0xFB) {
                    return null; // an error, or not a result set
                }
                columns = first;
            } else if (packet > columns && !(first == 0xFE && length < 9)) {
                // the row: a length-encoded string of up to 20 digits (0xFB would be NULL)
                if (first < 1 || first > 20 || length < 1 + first) {
                    return null;
                }
                try {
                    return Long.parseUnsignedLong(framed.toString(payload + 1, first, US_ASCII));
                } catch (NumberFormatException e) {
                    return null;
                }
            }
            packet++;
            i = payload + length;
        }
        return null;
    }
}
