package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.codec.BinaryValueLength;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.row.BinaryValue;
import io.shardgate.protocol.row.TextValue;
import java.util.List;

/**
 * One row of a shard's result, text (Text Resultset Row) or binary (Binary Protocol Resultset Row),
 * as a slice of the shard's buffer plus the byte range of each cell. Cells are decoded only when the
 * merge compares or aggregates them, and relayed byte for byte otherwise, so values the merge does
 * not compute reach the client exactly as the server encoded them.
 */
final class ShardRow implements MergedRow {
    private static final int NULL = -1;

    final int shard;
    private final ByteBuf payload;
    private final List<ResultColumn> columns;
    private final boolean binary;
    /** Start of each cell's bytes in {@code payload} (text: with its length prefix), or NULL. */
    private final int[] start;

    private final int[] end;
    private final Object[] decoded;

    /** Indexes a row payload; neither retains nor releases it, and the row refers to it. */
    ShardRow(int shard, ByteBuf payload, List<ResultColumn> columns, boolean binary) {
        this.shard = shard;
        this.payload = payload;
        this.columns = columns;
        this.binary = binary;
        int n = columns.size();
        this.start = new int[n];
        this.end = new int[n];
        this.decoded = new Object[n];
        try {
            if (binary) {
                indexBinary(n);
            } else {
                indexText(n);
            }
        } catch (IndexOutOfBoundsException | MalformedPacketException e) {
            throw new MergeException("shard " + (shard + 1) + " sent a malformed row: " + e.getMessage());
        }
    }

    private void indexText(int n) {
        ByteBuf in = payload.duplicate();
        for (int i = 0; i < n; i++) {
            int at = in.readerIndex();
            if (LengthEncoded.isNull(in)) {
                in.skipBytes(1); // in a text row 0xFB is NULL, not a length prefix
                start[i] = NULL;
            } else {
                LengthEncoded.skip(in);
                start[i] = at;
            }
            end[i] = in.readerIndex();
        }
        if (in.isReadable()) {
            throw new MergeException("shard " + (shard + 1) + " sent a text row with more than " + n + " columns");
        }
    }

    private void indexBinary(int n) {
        int bitmap = payload.readerIndex() + 1;
        int at = bitmap + (n + 7 + 2) / 8;
        for (int i = 0; i < n; i++) {
            int bit = i + 2; // the binary row's NULL bitmap starts at bit offset 2
            if ((payload.getByte(bitmap + (bit >>> 3)) & (1 << (bit & 7))) != 0) {
                start[i] = NULL;
                end[i] = at;
            } else {
                start[i] = at;
                at += BinaryValueLength.at(payload, at, columns.get(i).type());
                end[i] = at;
            }
        }
        if (at != payload.writerIndex()) {
            throw new MergeException("shard " + (shard + 1) + " sent a binary row with more than " + n + " columns");
        }
    }

    /**
     * This row over a heap copy of its payload (unpooled, nothing to release), for a merge that
     * keeps it after the shard's buffer is gone: a group's first row, a MIN's or MAX's best, a
     * DISTINCT row. Values already decoded are kept.
     */
    ShardRow detached() {
        byte[] copy = new byte[payload.readableBytes()];
        payload.getBytes(payload.readerIndex(), copy);
        ShardRow row = new ShardRow(shard, Unpooled.wrappedBuffer(copy), columns, binary);
        System.arraycopy(decoded, 0, row.decoded, 0, decoded.length);
        return row;
    }

    /** The bytes a merge keeping this row is charged: its payload and its cell index. */
    long heldBytes() {
        return payload.readableBytes() + 8L * start.length;
    }

    @Override
    public boolean isNull(int column) {
        return start[column] == NULL;
    }

    /** The Java value of a cell (see io.shardgate.protocol.row), null for NULL; decoded once. */
    @Override
    public Object value(int column) {
        if (start[column] == NULL) {
            return null;
        }
        Object v = decoded[column];
        if (v == null) {
            ResultColumn c = columns.get(column);
            try {
                if (binary) {
                    v = BinaryValue.read(
                            payload.slice(start[column], end[column] - start[column]), c.type(), c.unsigned());
                } else {
                    ByteBuf cell = payload.slice(start[column], end[column] - start[column]);
                    v = TextValue.parse(LengthEncoded.readBytes(cell), c.type(), c.unsigned());
                }
            } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
                throw new MergeException(
                        "shard " + (shard + 1) + " sent a bad value in column " + (column + 1) + ": " + e.getMessage());
            }
            decoded[column] = v;
        }
        return v;
    }

    @Override
    public boolean computed(int column) {
        return false;
    }

    /** Copies the cell's bytes as the server encoded them (text: with its length prefix). */
    @Override
    public void copyCell(ByteBuf out, int column) {
        if (start[column] == NULL) {
            throw new IllegalStateException("NULL has no cell bytes");
        }
        out.writeBytes(payload, start[column], end[column] - start[column]);
    }
}
