package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Frame;
import io.shardgate.protocol.packet.EofPacket;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.ServerStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * One shard's complete response to a COM_QUERY or COM_STMT_EXECUTE, checked and indexed in one pass
 * over its frames: an ERR, an OK, or one result set whose rows stay in the shard's buffer (only the
 * byte range of the row packets is kept, so indexing costs no memory per row).
 */
final class ShardResponse {
    enum Kind {
        ERR,
        OK,
        RESULT_SET
    }

    final int shard;
    final Kind kind;
    /** ERR payload (ERR), or the OK payload (OK); null for a result set. */
    final ByteBuf packet;

    final List<ResultColumn> columns;
    private final ByteBuf frames;
    private final int rowsStart;
    private final int rowsEnd;
    final int warnings;

    private ShardResponse(
            int shard,
            Kind kind,
            ByteBuf packet,
            List<ResultColumn> columns,
            ByteBuf frames,
            int start,
            int end,
            int warnings) {
        this.shard = shard;
        this.kind = kind;
        this.packet = packet;
        this.columns = columns;
        this.frames = frames;
        this.rowsStart = start;
        this.rowsEnd = end;
        this.warnings = warnings;
    }

    /** Indexes {@code frames}; neither retains nor releases it, and the result refers to it. */
    static ShardResponse read(ByteBuf frames, int shard, boolean binary, boolean deprecateEof) {
        PacketReader packets = new PacketReader(frames, shard);
        ByteBuf first = next(packets, shard, "a response");
        int header = first.getUnsignedByte(first.readerIndex());
        if (header == ErrPacket.HEADER || header == OkPacket.HEADER) {
            end(packets, shard);
            return new ShardResponse(
                    shard, header == ErrPacket.HEADER ? Kind.ERR : Kind.OK, first, List.of(), frames, 0, 0, 0);
        }
        if (header == 0xFB) {
            throw new MergeException("shard " + (shard + 1) + " asked for a LOCAL INFILE upload");
        }
        long count = LengthEncoded.readInt(first.duplicate());
        if (count <= 0 || count > 4096) {
            throw new MergeException("shard " + (shard + 1) + " sent a column count of " + count);
        }
        if (first.readableBytes() == LengthEncoded.sizeOfInt(count) + 1
                && first.getByte(first.writerIndex() - 1) == 0) {
            throw new MergeException("shard " + (shard + 1)
                    + " omitted the column definitions (MARIADB_CLIENT_CACHE_METADATA); the merge needs them");
        }
        List<ResultColumn> columns = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            columns.add(ResultColumn.read(next(packets, shard, "column definition " + (i + 1)), shard, i));
        }
        if (!deprecateEof) {
            ByteBuf eof = next(packets, shard, "the EOF after the column definitions");
            if (!EofPacket.isEof(eof) || eof.readableBytes() >= 9) {
                throw unexpected(shard, eof, "the EOF after the column definitions");
            }
        }
        int start = packets.position();
        while (true) {
            int rowStart = packets.position();
            ByteBuf row = next(packets, shard, "a row or the end of the result set");
            int h = row.getUnsignedByte(row.readerIndex());
            if (h == ErrPacket.HEADER) {
                end(packets, shard);
                return new ShardResponse(shard, Kind.ERR, row, List.of(), frames, 0, 0, 0);
            }
            if (h == EofPacket.HEADER && row.readableBytes() < (deprecateEof ? Frame.MAX_PAYLOAD : 9)) {
                int[] warningsAndStatus = terminator(row, deprecateEof);
                if ((warningsAndStatus[1] & ServerStatus.SERVER_MORE_RESULTS_EXISTS) != 0) {
                    throw new MergeException("shard " + (shard + 1) + " sent more than one result set");
                }
                end(packets, shard);
                return new ShardResponse(
                        shard,
                        Kind.RESULT_SET,
                        null,
                        List.copyOf(columns),
                        frames,
                        start,
                        rowStart,
                        warningsAndStatus[0]);
            }
            if (binary && h != 0x00) {
                throw unexpected(shard, row, "a binary row");
            }
        }
    }

    /** The rows of this result set, in the shard's order. */
    PacketReader rows() {
        return new PacketReader(frames.slice(rowsStart, rowsEnd - rowsStart), shard);
    }

    /** {warnings, status flags} of an EOF packet or of an OK packet with header 0xFE. */
    private static int[] terminator(ByteBuf packet, boolean deprecateEof) {
        ByteBuf in = packet.duplicate();
        in.skipBytes(1);
        if (deprecateEof) {
            LengthEncoded.readInt(in); // affected rows
            LengthEncoded.readInt(in); // last insert id
            int status = in.readUnsignedShortLE();
            return new int[] {in.readUnsignedShortLE(), status};
        }
        int warnings = in.readUnsignedShortLE();
        return new int[] {warnings, in.readUnsignedShortLE()};
    }

    private static ByteBuf next(PacketReader packets, int shard, String expected) {
        if (!packets.hasNext()) {
            throw new MergeException("shard " + (shard + 1) + "'s response ended before " + expected);
        }
        ByteBuf p = packets.next();
        if (!p.isReadable()) {
            throw new MergeException("shard " + (shard + 1) + " sent an empty packet where " + expected + " belongs");
        }
        return p;
    }

    private static void end(PacketReader packets, int shard) {
        if (packets.hasNext()) {
            throw new MergeException("shard " + (shard + 1) + " sent packets after the end of its response");
        }
    }

    private static MergeException unexpected(int shard, ByteBuf packet, String expected) {
        return new MergeException("shard " + (shard + 1) + " sent a packet with header 0x"
                + Integer.toHexString(packet.getUnsignedByte(packet.readerIndex())) + " where " + expected
                + " belongs");
    }
}
