package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.sharding.plan.MergeSpec;
import io.shardgate.sharding.plan.MergeSpec.SortKey;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The merge of several shards' result sets while they arrive, for statements whose merge needs no
 * more than one row per shard: a plain concatenation (rows go out in whatever order the shards
 * deliver them) or an ORDER BY (a k-way merge of the shards' sorted rows), with LIMIT/OFFSET and
 * hidden sort columns. Grouping, aggregates and DISTINCT fold rows into groups instead
 * ({@link GroupedMerge}).
 *
 * <p>Design. The scatter feeds each shard's bytes in as they come ({@link #addAndRelease}); rows
 * queue per shard; {@link #poll} writes what can be decided now into a new buffer: the column
 * definitions once every shard has sent its own, then rows, then the terminator. Memory is what
 * the queues hold: the caller stops reading a shard while {@link #wantsMore} is false (its queue
 * is full, typically because a k-way merge waits for another shard's next row) and while the
 * client cannot take more; holding more than {@code maxBytes} (plus one socket read per shard, which
 * may land after a pause: {@link #READ_AHEAD_BYTES}) ends the statement with ER_OUT_OF_RESOURCES
 * rather than exhausting the router's memory, e.g. for a single row larger than that. Once the client's answer is complete (LIMIT reached,
 * an ERR) {@link #complete()} is true and what still arrives is discarded.
 *
 * <p>Threading: one instance per statement, on the session's event loop. Owns every buffer it holds
 * until {@link #close}.
 */
public final class StreamingMerge implements ResultMerge {
    /** A shard's queue may hold this much before its reading pauses, whatever maxBytes says. */
    private static final long MIN_QUEUE_BYTES = 16 * 1024;
    /**
     * What one socket read may add after a shard was paused (Netty's adaptive receive buffer grows
     * to 64 KiB): allowed beyond maxBytes per shard, as reading stops only between reads.
     */
    static final long READ_AHEAD_BYTES = 64 * 1024;

    private final ByteBufAllocator alloc;
    private final ShardStream[] shards;
    private final MergeSpec spec;
    private final boolean binary;
    private final boolean deprecateEof;
    private final long maxBytes;
    private final long queueBytes;
    /** ORDER BY: the shards' head rows, least first (ties: lower shard first); null for a concatenation. */
    private final PriorityQueue<ShardRow> heads;
    /** The row payload each shard has in {@link #heads}, or null; owned here. */
    private final ByteBuf[] headPayloads;

    private ResponseWriter writer;
    /** Every shard column (hidden ones last), once all shards described their result. */
    private List<ResultColumn> columns;

    private List<ResultColumn> clientColumns;
    private ColumnOrder[] orders;
    private int[] keyColumns;
    private long toSkip;
    private long left;
    private boolean complete;
    /** An ERR decided while nothing could be written; sent by the next {@link #poll}. */
    private ErrPacket pendingError;
    /**
     * A shard's ERR is due: the merge needs the row that shard failed on (an ORDER BY merge whose
     * least row may be it; any row of a concatenation). The rows that still arrive are dropped and
     * the answer ends with the ERR {@link ShardErrors} decides once every shard has ended: until
     * then the merge goes on from the rows every shard sent before failing, so a LIMIT met by them
     * is answered in full, as MySQL answers it without evaluating the failing row.
     */
    private boolean failing;
    /** The statement has a LIMIT or OFFSET. */
    private final boolean windowed;
    /** Where the round robin of a concatenation looks first. */
    private int nextShard;

    /**
     * @param offset the client's LIMIT offset (-1: none)
     * @param count the client's LIMIT row count (-1: none)
     * @param maxBytes most bytes the merge may hold at once
     */
    public StreamingMerge(
            ByteBufAllocator alloc,
            int shardCount,
            MergeSpec spec,
            long offset,
            long count,
            boolean binary,
            boolean deprecateEof,
            long maxBytes) {
        if (!streams(spec)) {
            throw new IllegalArgumentException("the merge needs whole results: " + spec);
        }
        this.alloc = alloc;
        this.spec = spec;
        this.binary = binary;
        this.deprecateEof = deprecateEof;
        this.maxBytes = maxBytes;
        this.queueBytes = Math.max(MIN_QUEUE_BYTES, maxBytes / (2L * shardCount));
        this.shards = new ShardStream[shardCount];
        for (int i = 0; i < shardCount; i++) {
            shards[i] = new ShardStream(i, alloc, binary, deprecateEof);
        }
        this.toSkip = Math.max(0, offset);
        this.left = count < 0 ? Long.MAX_VALUE : count;
        this.windowed = offset > 0 || count >= 0;
        this.headPayloads = new ByteBuf[shardCount];
        Comparator<ShardRow> byKeys = this::compareRows;
        this.heads = spec.orderBy().isEmpty()
                ? null
                : new PriorityQueue<>(shardCount, byKeys.thenComparingInt(r -> r.shard));
    }

    /** Whether a merge can stream: no grouping, aggregates, DISTINCT or affected-row sums. */
    public static boolean streams(MergeSpec spec) {
        return spec.groupBy().isEmpty() && spec.aggregates().isEmpty() && !spec.distinct() && !spec.sumAffectedRows();
    }

    /** The next bytes of shard {@code shard}'s response; released here. */
    @Override
    public void addAndRelease(int shard, ByteBuf chunk) {
        if (complete) {
            chunk.release(); // the answer is sent: the rest of the response is read and dropped
            return;
        }
        try {
            shards[shard].addAndRelease(chunk);
            if (failing) {
                shards[shard].dropRows();
            }
        } catch (MergeException e) {
            fail(e.toErr());
        }
    }

    /** Whether shard {@code shard} should be read further now (its queue has room, or it is being drained). */
    public boolean wantsMore(int shard) {
        // complete rows only: a row larger than the queue must still arrive whole
        return complete || failing || shards[shard].queuedBytes() < queueBytes;
    }

    /** True once the client's answer is decided in full; later bytes are discarded. */
    public boolean complete() {
        return complete && pendingError == null;
    }

    /** The bytes the merge holds now. */
    public long heldBytes() {
        long held = 0;
        for (ShardStream s : shards) {
            held += s.heldBytes();
        }
        return held;
    }

    /**
     * What can be sent to the client now, about {@code batchBytes} at most (one row more), framed
     * with sequence ids from 1 over the whole response; null when nothing can be sent yet.
     *
     * @param allEnded whether every shard's response has ended (nothing more will arrive)
     * @param statusFlags server status for the EOF packets
     */
    public ByteBuf poll(int batchBytes, boolean allEnded, int statusFlags) {
        if (complete()) {
            return null;
        }
        ByteBuf out = alloc.buffer(Math.min(batchBytes, 8192) + 64);
        try {
            if (writer == null) {
                writer = new ResponseWriter(out);
            } else {
                writer.into(out);
            }
            try {
                fill(out, batchBytes, allEnded, statusFlags);
            } catch (MergeException e) {
                writer.abandon();
                writeError(e.toErr());
            }
            if (!out.isReadable()) {
                out.release();
                return null;
            }
            return out;
        } catch (RuntimeException | Error e) {
            out.release();
            throw e;
        }
    }

    private void fill(ByteBuf out, int batchBytes, boolean allEnded, int statusFlags) {
        if (pendingError != null) {
            ErrPacket error = pendingError;
            pendingError = null;
            error.write(writer.begin());
            writer.end();
            return;
        }
        if (heldBytes() > maxBytes + READ_AHEAD_BYTES * shards.length) {
            writeError(
                    ErrorCode.ER_OUT_OF_RESOURCES,
                    "Out of memory: merging the results of " + shards.length
                            + " shards needs more than server.max_merge_bytes (" + maxBytes + " bytes)");
            return;
        }
        // a shard that failed before its result set has no row to merge; a concatenation needs them all
        failing |= heads == null && failedShard() != null || failedBeforeColumns();
        if (failing) {
            endFailing(allEnded);
            return;
        }
        if (columns == null && !describe(statusFlags)) {
            return;
        }
        while (!complete && out.readableBytes() < batchBytes) {
            if (left == 0) {
                terminator(statusFlags); // the LIMIT is met: what failed after it does not matter
                continue;
            }
            failing |= heads == null && failedShard() != null;
            if (failing || !nextRow()) {
                if (failing) {
                    endFailing(allEnded);
                } else if (allEnded || everyShardEnded()) {
                    terminator(statusFlags);
                }
                return;
            }
        }
    }

    /** Writes the column definitions once every shard sent its own. */
    private boolean describe(int statusFlags) {
        for (ShardStream s : shards) {
            if (!s.described()) {
                return false;
            }
        }
        List<ResultColumn> first = shards[0].columns();
        for (ShardStream s : shards) {
            ResultSetMerge.checkShape(first, s.columns(), s.shard);
        }
        int client = first.size() - spec.hiddenColumns();
        if (client <= 0) {
            throw new MergeException("the shards sent " + first.size() + " columns, not more than the "
                    + spec.hiddenColumns() + " hidden ones");
        }
        if (heads != null) {
            orders = ResultSetMerge.orders(first.toArray(new ResultColumn[0]), spec, c -> at(c, client, first.size()));
            keyColumns = spec.orderBy().stream()
                    .mapToInt(k -> ResultSetMerge.sortColumn(k.column(), client, first.size()))
                    .toArray();
        }
        columns = first;
        clientColumns = first.subList(0, client);
        writer.columnCount(client);
        for (int i = 0; i < client; i++) {
            writer.columnDefinition(clientColumns.get(i), spec.itemName(i));
        }
        if (!deprecateEof) {
            writer.eof(0, statusFlags);
        }
        return true;
    }

    private int compareRows(MergedRow a, MergedRow b) {
        List<SortKey> keys = spec.orderBy();
        for (int i = 0; i < keyColumns.length; i++) {
            int c = orders[keyColumns[i]].compare(a, b);
            if (c != 0) {
                return keys.get(i).descending() ? -c : c;
            }
        }
        return 0;
    }

    private static int at(MergeSpec.Column c, int client, int total) {
        int at = c.fromEnd() ? client + c.index() : c.index();
        if (at < 0 || at >= total) {
            throw new MergeException("the merge refers to column " + (at + 1) + " of " + total);
        }
        return at;
    }

    /** Writes (or skips, for OFFSET) the next row; false when the merge must wait for more. */
    private boolean nextRow() {
        ShardRow row;
        ByteBuf payload;
        if (heads == null) {
            ShardStream s = anyWithRow();
            if (s == null) {
                return false;
            }
            payload = s.pollRow();
            try {
                row = spec.hiddenColumns() == 0 ? null : new ShardRow(s.shard, payload, columns, binary);
            } catch (MergeException e) {
                payload.release();
                throw e;
            }
        } else {
            for (ShardStream s : shards) {
                if (headPayloads[s.shard] != null) {
                    continue;
                }
                if (s.hasRow()) {
                    ByteBuf p = s.pollRow();
                    headPayloads[s.shard] = p;
                    heads.add(new ShardRow(s.shard, p, columns, binary));
                } else if (s.error() != null) {
                    failing = true; // the least row may be the one this shard failed on
                    return false;
                } else if (!s.ended()) {
                    return false; // the least row may still come from this shard
                }
            }
            row = heads.poll();
            if (row == null) {
                return false;
            }
            payload = headPayloads[row.shard];
            headPayloads[row.shard] = null;
        }
        try {
            if (toSkip > 0) {
                toSkip--;
            } else {
                left--;
                if (row == null || spec.hiddenColumns() == 0) {
                    writer.copy(payload);
                } else if (binary) {
                    writer.binaryRow(row, clientColumns);
                } else {
                    writer.textRow(row, clientColumns);
                }
            }
        } finally {
            payload.release();
        }
        return true;
    }

    /** Round robin over the shards with a queued row, so no shard's queue waits behind another's. */
    private ShardStream anyWithRow() {
        for (int i = 0; i < shards.length; i++) {
            ShardStream s = shards[(nextShard + i) % shards.length];
            if (s.hasRow()) {
                nextShard = (s.shard + 1) % shards.length;
                return s;
            }
        }
        return null;
    }

    private ShardStream failedShard() {
        for (ShardStream s : shards) {
            if (s.error() != null) {
                return s;
            }
        }
        return null;
    }

    /** While failing: drops what the shards sent; once all have ended, writes the decided ERR. */
    private void endFailing(boolean allEnded) {
        dropRows();
        for (ShardStream s : shards) {
            if (!allEnded && !s.ended()) {
                return;
            }
        }
        ShardErrors.write(writer, ShardStream.errors(shards), windowed);
        finish();
    }

    private boolean failedBeforeColumns() {
        for (ShardStream s : shards) {
            if (s.error() != null && s.columns().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private boolean everyShardEnded() {
        for (ShardStream s : shards) {
            if (!s.ended() || s.hasRow()) {
                return false;
            }
        }
        return heads == null || heads.isEmpty();
    }

    private void terminator(int statusFlags) {
        int warnings = 0;
        for (ShardStream s : shards) {
            warnings = Math.min(0xFFFF, warnings + s.warnings());
        }
        writer.terminator(deprecateEof, warnings, statusFlags);
        finish();
    }

    /**
     * Ends the answer with an ERR at the next {@link #poll}: as the whole response when nothing was
     * sent yet, else in place of the next row (as a server does when a statement fails while it sends
     * rows).
     */
    private void fail(ErrPacket error) {
        pendingError = error;
        finish();
    }

    private void writeError(ErrorCode code, String message) {
        writeError(new ErrPacket(code.code(), code.sqlState(), message));
    }

    private void writeError(ErrPacket error) {
        error.write(writer.begin());
        writer.end();
        finish();
    }

    private void finish() {
        complete = true;
        dropRows();
    }

    private void dropRows() {
        for (int i = 0; i < shards.length; i++) {
            shards[i].dropRows();
            if (headPayloads[i] != null) {
                headPayloads[i].release();
                headPayloads[i] = null;
            }
        }
        if (heads != null) {
            heads.clear();
        }
    }

    /** Releases everything held; the merge is unusable after. */
    @Override
    public void close() {
        finish();
        for (ShardStream s : shards) {
            s.close();
        }
    }
}
