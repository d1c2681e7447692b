package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.shardgate.sharding.plan.MergeSpec;

/**
 * How the responses of one statement that ran on several shards become the client's answer:
 * exactly one of
 * <ul>
 *   <li>{@link StreamingMerge}: rows go to the client as the shards deliver them (plain reads,
 *       ORDER BY, LIMIT), a shard paused while its queue is full;
 *   <li>{@link GroupedMerge}: rows fold into their groups as they arrive (GROUP BY, aggregates,
 *       DISTINCT); the answer once every shard has ended;
 *   <li>{@link BufferedMerge}: each shard's whole response kept (writes' OKs, SHOW, anything else)
 *       and merged once every shard has ended.
 * </ul>
 * {@link #of} chooses by the statement and its plan's merge; the executor feeds the shards' bytes
 * to {@link #addAndRelease} and, for a {@link Whole} merge, asks for the {@link Whole#result}.
 */
public sealed interface ResultMerge permits StreamingMerge, ResultMerge.Whole {

    /** Bytes of shard {@code shard}'s response, framed as the server sent them; released here. */
    void addAndRelease(int shard, ByteBuf chunk);

    /** Releases whatever the merge holds; idempotent. */
    void close();

    /** A merge that answers once every shard's response has ended. */
    sealed interface Whole extends ResultMerge permits GroupedMerge, BufferedMerge {
        /** True once the merge holds more than its budget: it has then dropped what it held. */
        boolean overBudget();

        /** What the merge holds, for the over-budget error: "GROUP BY, aggregates and DISTINCT hold ...". */
        String holds();

        /**
         * The client's answer, framed, sequence ids from 1 ({@code statusFlags} in its final EOF or
         * OK); {@link #close} still releases what was held.
         *
         * @throws MergeException when the shards' responses cannot be merged (the message says why)
         */
        ByteBuf result(int statusFlags);
    }

    /**
     * The merge for one execution over {@code shards} shards of a statement ({@code select}: a
     * SELECT) whose plan merges as {@code spec}; {@code offset} and {@code count} are its LIMIT
     * (-1: none), {@code maxBytes} the most it may hold ({@code server.max_merge_bytes}).
     */
    static ResultMerge of(
            boolean select,
            ByteBufAllocator alloc,
            int shards,
            MergeSpec spec,
            long offset,
            long count,
            boolean binary,
            boolean deprecateEof,
            long maxBytes) {
        if (select && StreamingMerge.streams(spec)) {
            return new StreamingMerge(alloc, shards, spec, offset, count, binary, deprecateEof, maxBytes);
        }
        if (select && GroupedMerge.applies(spec)) {
            return new GroupedMerge(alloc, shards, spec, offset, count, binary, deprecateEof, maxBytes);
        }
        return new BufferedMerge(alloc, shards, spec, offset, count, binary, deprecateEof, maxBytes);
    }
}
