package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.shardgate.sharding.plan.MergeSpec;
import java.util.Arrays;

/**
 * Keeps each shard's whole response and merges them once every shard has ended ({@link
 * ShardResultMerger}): writes (affected rows summed, insert ids), SHOW and whatever does not stream
 * or fold. Not thread-safe: one statement's executor feeds it.
 */
public final class BufferedMerge implements ResultMerge.Whole {
    private final ByteBufAllocator alloc;
    private final MergeSpec spec;
    private final long offset;
    private final long count;
    private final boolean binary;
    private final boolean deprecateEof;
    private final long maxBytes;
    /** Each shard's response so far, or null before its first bytes. */
    private final ByteBuf[] responses;

    private long bufferedBytes;
    private boolean overBudget;

    /** See {@link ResultMerge#of}. */
    public BufferedMerge(
            ByteBufAllocator alloc,
            int shardCount,
            MergeSpec spec,
            long offset,
            long count,
            boolean binary,
            boolean deprecateEof,
            long maxBytes) {
        this.alloc = alloc;
        this.spec = spec;
        this.offset = offset;
        this.count = count;
        this.binary = binary;
        this.deprecateEof = deprecateEof;
        this.maxBytes = maxBytes;
        this.responses = new ByteBuf[shardCount];
    }

    @Override
    public void addAndRelease(int shard, ByteBuf chunk) {
        try {
            if (overBudget) {
                return;
            }
            bufferedBytes += chunk.readableBytes();
            if (bufferedBytes > maxBytes) {
                overBudget = true;
                close();
                return;
            }
            if (responses[shard] == null) {
                responses[shard] = alloc.buffer(Math.max(256, chunk.readableBytes()));
            }
            responses[shard].writeBytes(chunk);
        } finally {
            chunk.release();
        }
    }

    @Override
    public boolean overBudget() {
        return overBudget;
    }

    @Override
    public String holds() {
        return "GROUP BY, aggregates and DISTINCT hold the shards' whole results";
    }

    @Override
    public ByteBuf result(int statusFlags) {
        return ShardResultMerger.merge(
                alloc, Arrays.asList(responses), spec, offset, count, binary, deprecateEof, statusFlags);
    }

    @Override
    public void close() {
        for (int i = 0; i < responses.length; i++) {
            if (responses[i] != null) {
                responses[i].release();
                responses[i] = null;
            }
        }
    }
}
