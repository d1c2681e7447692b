package io.shardgate.it.proxy;

import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one whole COM_QUERY / COM_STMT_EXECUTE response from a {@link RawMySqlClient} that did not
 * negotiate CLIENT_DEPRECATE_EOF: every result (OK, or column count, definitions, EOF, rows, EOF)
 * while the server announces SERVER_MORE_RESULTS_EXISTS, up to the final OK, EOF or ERR. Returns
 * the packets' payloads in hex, sequence ids prefixed, for byte-exact comparisons.
 */
final class RawResults {
    private static final int SERVER_MORE_RESULTS_EXISTS = 0x0008;
    private static final int SERVER_STATUS_CURSOR_EXISTS = 0x0040;

    private RawResults() {}

    /**
     * @param cursorRequested the command was a COM_STMT_EXECUTE with a cursor flag: a result set
     *     whose column EOF says SERVER_STATUS_CURSOR_EXISTS without SERVER_MORE_RESULTS_EXISTS opened
     *     a cursor and sends no rows (a stored procedure's result sets may carry the flag too)
     */
    static List<String> readResponse(RawMySqlClient c, boolean cursorRequested) throws IOException {
        return read(c, cursorRequested, null);
    }

    /** The rest of a COM_QUERY response whose first packet {@code first} was read already. */
    static List<String> readRest(RawMySqlClient c, RawMySqlClient.RawPacket first) throws IOException {
        return read(c, false, first);
    }

    private static List<String> read(RawMySqlClient c, boolean cursorRequested, RawMySqlClient.RawPacket readFirst)
            throws IOException {
        List<String> packets = new ArrayList<>();
        RawMySqlClient.RawPacket pending = readFirst;
        while (true) {
            RawMySqlClient.RawPacket first = pending != null ? pending : read(c, packets);
            pending = null;
            int status;
            if (first.isErr()) {
                return packets;
            } else if (first.isOk()) {
                status = okStatus(first.payload());
            } else {
                int columns = first.payload()[0] & 0xFF; // the tests' results have < 251 columns
                for (int i = 0; i < columns; i++) {
                    read(c, packets);
                }
                RawMySqlClient.RawPacket eof = read(c, packets);
                status = eofStatus(eof);
                boolean cursorOpened = cursorRequested
                        && (status & SERVER_STATUS_CURSOR_EXISTS) != 0
                        && (status & SERVER_MORE_RESULTS_EXISTS) == 0;
                if (!cursorOpened) {
                    RawMySqlClient.RawPacket row = read(c, packets);
                    while (!row.isEof() && !row.isErr()) {
                        row = read(c, packets);
                    }
                    if (row.isErr()) {
                        return packets;
                    }
                    status = eofStatus(row);
                }
            }
            if ((status & SERVER_MORE_RESULTS_EXISTS) == 0) {
                return packets;
            }
        }
    }

    private static RawMySqlClient.RawPacket read(RawMySqlClient c, List<String> packets) throws IOException {
        RawMySqlClient.RawPacket packet = c.readPacket();
        packets.add(packet.sequenceId() + ":" + ByteBufUtil.hexDump(packet.payload()));
        return packet;
    }

    private static int eofStatus(RawMySqlClient.RawPacket eof) {
        if (!eof.isEof()) {
            throw new AssertionError("expected an EOF packet, got " + eof);
        }
        byte[] p = eof.payload();
        return (p[3] & 0xFF) | (p[4] & 0xFF) << 8;
    }

    /** Status flags of an OK packet: after the header and two length-encoded integers. */
    private static int okStatus(byte[] p) {
        int at = 1;
        at += lengthEncodedSize(p[at] & 0xFF);
        at += lengthEncodedSize(p[at] & 0xFF);
        return (p[at] & 0xFF) | (p[at + 1] & 0xFF) << 8;
    }

    private static int lengthEncodedSize(int first) {
        return first < 0xFB ? 1 : first == 0xFC ? 3 : first == 0xFD ? 4 : 9;
    }
}
