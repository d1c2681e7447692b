package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Frame;
import io.shardgate.protocol.packet.EofPacket;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One shard's result set as it arrives, for a streamed merge: the column definitions once they
 * are all in, then a queue of row payloads waiting to be merged, then the end (its terminator or
 * an ERR). The same packet checks as {@link ShardResponse}, one packet at a time.
 *
 * <p>Owns every buffer it holds (column definitions, queued rows, an ERR) until {@link #close};
 * runs on the session's event loop.
 */
final class ShardStream {
    private enum Expect {
        FIRST,
        COLUMN_DEFS,
        COLUMN_DEFS_EOF,
        ROWS,
        END
    }

    final int shard;
    private final boolean binary;
    private final boolean deprecateEof;
    private final PacketAssembler packets;
    private Expect expect = Expect.FIRST;
    private long columnCount;
    private final List<ResultColumn> columns = new ArrayList<>();
    private final ArrayDeque<ByteBuf> rows = new ArrayDeque<>();
    private long queuedBytes;
    /** The ERR this shard answered (payload), or null. */
    private ByteBuf error;

    private int warnings;

    ShardStream(int shard, ByteBufAllocator alloc, boolean binary, boolean deprecateEof) {
        this.shard = shard;
        this.binary = binary;
        this.deprecateEof = deprecateEof;
        this.packets = new PacketAssembler(alloc);
    }

    /** Takes the next bytes of the shard's response (released here). */
    void addAndRelease(ByteBuf chunk) {
        packets.addAndRelease(chunk, this::packet);
    }

    /** Bytes held: queued rows and packets not yet complete. */
    long heldBytes() {
        return queuedBytes + packets.heldBytes();
    }

    /** Bytes of the complete rows waiting to be merged. */
    long queuedBytes() {
        return queuedBytes;
    }

    /** True once every column definition has arrived (or the shard answered an ERR). */
    boolean described() {
        return expect == Expect.ROWS || expect == Expect.END;
    }

    /** True when the shard's response has ended (terminator or ERR). */
    boolean ended() {
        return expect == Expect.END;
    }

    List<ResultColumn> columns() {
        return columns;
    }

    /** The ERR payload this shard answered, or null; still owned here. */
    ByteBuf error() {
        return error;
    }

    /** The ERR payloads of the shards of {@code shards} that answered one, in shard order; still owned there. */
    static List<ByteBuf> errors(ShardStream[] shards) {
        List<ByteBuf> errors = new ArrayList<>();
        for (ShardStream s : shards) {
            if (s.error != null) {
                errors.add(s.error);
            }
        }
        return errors;
    }

    int warnings() {
        return warnings;
    }

    boolean hasRow() {
        return !rows.isEmpty();
    }

    /** The next row's payload; the caller owns it. */
    ByteBuf pollRow() {
        ByteBuf row = rows.poll();
        queuedBytes -= row.readableBytes();
        return row;
    }

    private void packet(ByteBuf payload) {
        boolean keep = false;
        try {
            if (!payload.isReadable()) {
                throw new MergeException("shard " + (shard + 1) + " sent an empty packet");
            }
            keep = switch (expect) {
                case FIRST -> first(payload);
                case COLUMN_DEFS -> columnDefinition(payload);
                case COLUMN_DEFS_EOF -> {
                    if (!EofPacket.isEof(payload) || payload.readableBytes() >= 9) {
                        throw unexpected(payload, "the EOF after the column definitions");
                    }
                    expect = Expect.ROWS;
                    yield false;
                }
                case ROWS -> row(payload);
                case END -> throw new MergeException("shard " + (shard + 1) + " sent packets after its response");
            };
        } finally {
            if (!keep) {
                payload.release();
            }
        }
    }

    private boolean first(ByteBuf payload) {
        int header = payload.getUnsignedByte(payload.readerIndex());
        if (header == ErrPacket.HEADER) {
            return endWithError(payload);
        }
        if (header == OkPacket.HEADER) {
            throw new MergeException("shard " + (shard + 1) + " answered OK where a result set belongs");
        }
        if (header == 0xFB) {
            throw new MergeException("shard " + (shard + 1) + " asked for a LOCAL INFILE upload");
        }
        columnCount = LengthEncoded.readInt(payload.duplicate());
        if (columnCount <= 0 || columnCount > 4096) {
            throw new MergeException("shard " + (shard + 1) + " sent a column count of " + columnCount);
        }
        if (payload.readableBytes() == LengthEncoded.sizeOfInt(columnCount) + 1
                && payload.getByte(payload.writerIndex() - 1) == 0) {
            throw new MergeException("shard " + (shard + 1)
                    + " omitted the column definitions (MARIADB_CLIENT_CACHE_METADATA); the merge needs them");
        }
        expect = Expect.COLUMN_DEFS;
        return false;
    }

    private boolean columnDefinition(ByteBuf payload) {
        columns.add(ResultColumn.read(payload, shard, columns.size()));
        if (columns.size() == columnCount) {
            expect = deprecateEof ? Expect.ROWS : Expect.COLUMN_DEFS_EOF;
        }
        return true;
    }

    private boolean row(ByteBuf payload) {
        int h = payload.getUnsignedByte(payload.readerIndex());
        if (h == ErrPacket.HEADER) {
            return endWithError(payload);
        }
        if (h == EofPacket.HEADER && payload.readableBytes() < (deprecateEof ? Frame.MAX_PAYLOAD : 9)) {
            ByteBuf in = payload.duplicate().skipBytes(1);
            int status;
            if (deprecateEof) {
                LengthEncoded.readInt(in); // affected rows
                LengthEncoded.readInt(in); // last insert id
                status = in.readUnsignedShortLE();
                warnings = in.readUnsignedShortLE();
            } else {
                warnings = in.readUnsignedShortLE();
                status = in.readUnsignedShortLE();
            }
            if ((status & io.shardgate.protocol.type.ServerStatus.SERVER_MORE_RESULTS_EXISTS) != 0) {
                throw new MergeException("shard " + (shard + 1) + " sent more than one result set");
            }
            expect = Expect.END;
            return false;
        }
        if (binary && h != 0x00) {
            throw unexpected(payload, "a binary row");
        }
        rows.add(payload);
        queuedBytes += payload.readableBytes();
        return true;
    }

    private boolean endWithError(ByteBuf payload) {
        error = payload;
        expect = Expect.END;
        return true;
    }

    private MergeException unexpected(ByteBuf packet, String expected) {
        return new MergeException("shard " + (shard + 1) + " sent a packet with header 0x"
                + Integer.toHexString(packet.getUnsignedByte(packet.readerIndex())) + " where " + expected
                + " belongs");
    }

    /** Drops the rows still queued (the merge has what it needs); the end is still awaited. */
    void dropRows() {
        ByteBuf row;
        while ((row = rows.poll()) != null) {
            row.release();
        }
        queuedBytes = 0;
    }

    /** Releases everything held. */
    void close() {
        dropRows();
        packets.close();
        for (ResultColumn c : columns) {
            c.payload().release();
        }
        columns.clear();
        if (error != null) {
            error.release();
            error = null;
        }
    }
}
