package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.shardgate.sharding.plan.MergeSpec;
import java.util.List;

/**
 * The merge of a GROUP BY, an aggregate query or a DISTINCT on several shards while their rows
 * arrive: each row is decoded as soon as it is complete and folded into the {@link GroupState}, then
 * dropped, so the merge holds memory in proportion to the groups (the merged state), not to the
 * rows. When every shard has ended, the groups go out with HAVING, DISTINCT, ORDER BY and LIMIT
 * applied, byte for byte what {@link ShardResultMerger} makes of the same responses buffered whole.
 *
 * <p>Design. The scatter feeds each shard's bytes in as they come ({@link #addAndRelease}); a
 * {@link ShardStream} per shard turns them into column definitions and rows; rows wait only until
 * the first shard's column definitions (which type the merged columns) are in. The group state is
 * estimated from the decoded values it keeps ({@link ValueSize}); when it and the rows still queued
 * exceed {@code maxBytes}, the merge gives up ({@link #overBudget}) and releases what it holds. An
 * ERR from a shard or a malformed response stops the folding; the answer is still decided only once
 * every shard has ended, the first ERR in shard order winning, as for buffered responses.
 *
 * <p>Threading: one instance per statement, on the session's event loop. Owns every buffer it holds
 * until {@link #close}.
 */
public final class GroupedMerge implements ResultMerge.Whole {
    private final ByteBufAllocator alloc;
    private final ShardStream[] shards;
    private final MergeSpec spec;
    private final boolean binary;
    private final boolean deprecateEof;
    private final long maxBytes;
    private final long offset;
    private final long count;
    /** Whether each shard's column definitions were checked against the first shard's. */
    private final boolean[] checked;

    private ResultSetMerge merge;
    private GroupState state;
    /** Why the shards' results cannot be merged, or null. */
    private MergeException failure;

    private boolean overBudget;

    /**
     * @param offset the client's LIMIT offset (-1: none)
     * @param count the client's LIMIT row count (-1: none)
     * @param maxBytes most bytes the merge may hold at once
     */
    public GroupedMerge(
            ByteBufAllocator alloc,
            int shardCount,
            MergeSpec spec,
            long offset,
            long count,
            boolean binary,
            boolean deprecateEof,
            long maxBytes) {
        if (!applies(spec)) {
            throw new IllegalArgumentException("not a grouped, aggregate or DISTINCT merge: " + spec);
        }
        this.alloc = alloc;
        this.spec = spec;
        this.binary = binary;
        this.deprecateEof = deprecateEof;
        this.maxBytes = maxBytes;
        this.offset = offset;
        this.count = count;
        this.shards = new ShardStream[shardCount];
        for (int i = 0; i < shardCount; i++) {
            shards[i] = new ShardStream(i, alloc, binary, deprecateEof);
        }
        this.checked = new boolean[shardCount];
    }

    /** Whether a result-set merge folds rows: GROUP BY, aggregates or DISTINCT (no affected-row sums). */
    public static boolean applies(MergeSpec spec) {
        return ResultSetMerge.folds(spec) && !spec.sumAffectedRows();
    }

    /** The next bytes of shard {@code shard}'s response; released here. */
    @Override
    public void addAndRelease(int shard, ByteBuf chunk) {
        if (overBudget) {
            chunk.release();
            return;
        }
        try {
            shards[shard].addAndRelease(chunk);
            if (failure == null && failedShard() == null) {
                fold(shard);
            }
        } catch (MergeException e) {
            failure = failure == null ? e : failure;
        }
        if (failure != null || failedShard() != null) {
            dropRows(); // the answer is an error: nothing needs folding any more
        }
        if (heldBytes() > maxBytes) {
            overBudget = true;
            release();
        }
    }

    /** True once the merge holds more than {@code maxBytes}; it has then released what it held. */
    @Override
    public boolean overBudget() {
        return overBudget;
    }

    @Override
    public String holds() {
        return "GROUP BY, aggregates and DISTINCT hold every group";
    }

    /** The bytes the merge holds now (estimated for the group state). */
    public long heldBytes() {
        long held = state == null ? 0 : state.heldBytes();
        for (ShardStream s : shards) {
            held += s.heldBytes();
        }
        return held;
    }

    /** Folds what shard {@code shard} (or, once the first shard is described, every shard) has queued. */
    private void fold(int shard) {
        if (merge == null) {
            if (!shards[0].described()) {
                return;
            }
            merge = new ResultSetMerge(shards[0].columns(), spec, binary);
            state = merge.groupState(shards.length);
            for (ShardStream s : shards) {
                foldRows(s);
            }
            return;
        }
        foldRows(shards[shard]);
    }

    private void foldRows(ShardStream s) {
        if (!s.described()) {
            return;
        }
        if (!checked[s.shard]) {
            ResultSetMerge.checkShape(shards[0].columns(), s.columns(), s.shard);
            checked[s.shard] = true;
        }
        while (s.hasRow()) {
            ByteBuf payload = s.pollRow();
            try {
                state.add(new ShardRow(s.shard, payload, s.columns(), binary));
            } finally {
                payload.release();
            }
        }
    }

    /**
     * The client's whole answer once every shard's response has ended, framed with sequence ids
     * from 1: the first shard's ERR in shard order, an ERR saying why the results cannot be merged,
     * or the merged result set.
     */
    @Override
    public ByteBuf result(int statusFlags) {
        if (overBudget) {
            throw new IllegalStateException("the merge gave up: it held more than " + maxBytes + " bytes");
        }
        ByteBuf out = alloc.buffer(256);
        try {
            ResponseWriter writer = new ResponseWriter(out);
            List<ByteBuf> errors = ShardStream.errors(shards);
            if (!errors.isEmpty()) {
                ShardErrors.write(writer, errors, offset > 0 || count >= 0);
                return out;
            }
            try {
                for (ShardStream s : shards) {
                    if (!s.ended()) {
                        throw new MergeException("shard " + (s.shard + 1) + "'s response ended before its end");
                    }
                }
                if (failure != null) {
                    throw failure;
                }
                int warnings = 0;
                for (ShardStream s : shards) {
                    warnings = Math.min(0xFFFF, warnings + s.warnings());
                }
                merge.write(writer, merge.rows(state), offset, count, deprecateEof, warnings, statusFlags);
            } catch (MergeException e) {
                out.clear(); // a result set begun is replaced by the ERR, as a buffered merge does
                ResponseWriter error = new ResponseWriter(out);
                e.toErr().write(error.begin());
                error.end();
            }
            return out;
        } catch (RuntimeException | Error e) {
            out.release();
            throw e;
        } finally {
            state = null;
        }
    }

    private ShardStream failedShard() {
        for (ShardStream s : shards) {
            if (s.error() != null) {
                return s;
            }
        }
        return null;
    }

    private void dropRows() {
        for (ShardStream s : shards) {
            s.dropRows();
        }
        state = null;
        merge = null;
    }

    private void release() {
        dropRows();
        for (ShardStream s : shards) {
            s.close();
        }
    }

    /** Releases everything held; the merge is unusable after. */
    @Override
    public void close() {
        release();
    }
}
