package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.sharding.plan.MergeSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * Merges the responses of several shards to one statement into the response MySQL would give for
 * the statement on one server holding all their rows.
 *
 * <p>Design. The planner sends each shard a rewritten statement ({@code Plan.scatterSql}: keys that
 * are not selected as hidden trailing columns, AVG as SUM plus a hidden COUNT, LIMIT o,c as LIMIT
 * o+c) and describes the merge in a {@link MergeSpec}. This first version receives every shard's
 * complete response as the framed bytes the backend sent. It indexes them in one pass (an ERR
 * anywhere wins), then streams the merged rows into one output buffer: rows are never copied out
 * of the shards' buffers, cells the merge does not compute are relayed byte for byte, and what it
 * holds is one row per shard for ORDER BY and, for GROUP BY and DISTINCT, the {@link GroupState}
 * that {@link GroupedMerge} also folds rows into as they arrive (one implementation, so both give
 * the same bytes). Statements use it for OK responses; the other mergers' tests compare with it.
 * Values it computes (COUNT, SUM, AVG) are encoded with the protocol module's codecs in
 * the client's protocol (text or binary).
 *
 * <p>Threading: stateless; each call works on its arguments only.
 */
public final class ShardResultMerger {
    private ShardResultMerger() {}

    /**
     * The client's response to a statement that ran on every shard in {@code responses}; neither
     * retains nor releases the responses, which must stay readable until this returns.
     *
     * @param responses one complete response per shard to the same statement, as framed bytes exactly as
     *     the backend sent them (4-byte frame headers, sequence ids from 1): an ERR, an OK, or one result
     *     set (column count, column definitions, EOF unless deprecateEof, rows, EOF or OK-with-0xFE).
     *     Text rows for COM_QUERY, binary rows (COM_STMT_EXECUTE) when binary is true. Not released here.
     * @param offset the client's LIMIT offset, already resolved from its literal; -1 when absent
     * @param count the client's LIMIT row count; -1 when absent
     * @param statusFlags server status flags to put in the final EOF/OK (the session's view)
     * @return the client's response, framed, sequence ids from 1, allocated from {@code alloc}
     * @throws MergeException when the shapes disagree (different column counts, an unexpected packet);
     *     the message says what differed
     */
    public static ByteBuf merge(
            ByteBufAllocator alloc,
            List<ByteBuf> responses,
            MergeSpec spec,
            long offset,
            long count,
            boolean binary,
            boolean deprecateEof,
            int statusFlags) {
        if (responses.isEmpty()) {
            throw new IllegalArgumentException("no responses to merge");
        }
        List<ShardResponse> shards = new ArrayList<>(responses.size());
        for (int i = 0; i < responses.size(); i++) {
            shards.add(ShardResponse.read(responses.get(i), i, binary, deprecateEof));
        }
        ByteBuf out = alloc.buffer(estimate(responses));
        try {
            ResponseWriter writer = new ResponseWriter(out);
            List<ByteBuf> errors = shards.stream()
                    .filter(s -> s.kind == ShardResponse.Kind.ERR)
                    .map(s -> s.packet)
                    .toList();
            if (!errors.isEmpty()) {
                ShardErrors.write(writer, errors, offset > 0 || count >= 0);
                return out;
            }
            ShardResponse.Kind kind = shards.get(0).kind;
            for (ShardResponse s : shards) {
                if (s.kind != kind) {
                    throw new MergeException("shard 1 answered " + describe(kind) + " but shard " + (s.shard + 1) + " "
                            + describe(s.kind));
                }
            }
            if (kind == ShardResponse.Kind.OK) {
                mergeOk(writer, shards, spec, statusFlags);
            } else {
                ResultSetMerge.checkShapes(shards);
                ResultSetMerge merge = new ResultSetMerge(shards.get(0).columns, spec, binary);
                int warnings = 0;
                for (ShardResponse s : shards) {
                    warnings = Math.min(0xFFFF, warnings + s.warnings);
                }
                merge.write(writer, merge.rows(shards), offset, count, deprecateEof, warnings, statusFlags);
            }
            return out;
        } catch (RuntimeException | Error e) {
            out.release();
            throw e;
        }
    }

    /**
     * OK packets of a statement run on every shard: affected rows summed when the plan says so
     * (else the first shard's, as for a write to every copy of a broadcast table), warnings summed,
     * the first non-zero last insert id, and the info (and session state) only when all shards sent
     * the same bytes.
     */
    private static void mergeOk(ResponseWriter writer, List<ShardResponse> shards, MergeSpec spec, int statusFlags) {
        long affected = 0;
        long insertId = 0;
        int warnings = 0;
        ByteBuf info = null;
        boolean sameInfo = true;
        for (ShardResponse s : shards) {
            ByteBuf in = s.packet.duplicate();
            in.skipBytes(1);
            long rows = LengthEncoded.readInt(in);
            long id = LengthEncoded.readInt(in);
            in.skipBytes(2); // the shard's status flags: the session decides the client's
            warnings = Math.min(0xFFFF, warnings + in.readUnsignedShortLE());
            affected = spec.sumAffectedRows() || s.shard == 0 ? affected + rows : affected;
            insertId = insertId == 0 ? id : insertId;
            if (info == null) {
                info = in;
            } else if (!info.equals(in)) {
                sameInfo = false;
            }
        }
        ByteBuf p = writer.begin();
        p.writeByte(0x00);
        LengthEncoded.writeInt(p, affected);
        LengthEncoded.writeInt(p, insertId);
        p.writeShortLE(statusFlags);
        p.writeShortLE(warnings);
        if (sameInfo && info.isReadable()) {
            p.writeBytes(info, info.readerIndex(), info.readableBytes());
        }
        writer.end();
    }

    private static String describe(ShardResponse.Kind kind) {
        return switch (kind) {
            case OK -> "OK";
            case ERR -> "ERR";
            case RESULT_SET -> "a result set";
        };
    }

    private static int estimate(List<ByteBuf> responses) {
        long total = 0;
        for (ByteBuf b : responses) {
            total += b.readableBytes();
        }
        return (int) Math.min(total, 1 << 20);
    }
}
