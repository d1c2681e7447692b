package io.shardgate.cache;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One backend read that will fill a cache key, and the lookups waiting for it (single flight).
 * Handed to exactly one caller in a {@link Lookup.Fill}; the rest is internal to the cache.
 */
public final class FillTicket {
    final CacheKey key;
    final CachePolicy policy;
    final Set<QualifiedTable> tables;
    /** The invalidation tick noted before the backend query is sent. */
    final long since;
    /** Fill order, see {@link CacheEntry#fill}. */
    final long fill;
    /** Ticker time it started, for the fill timeout. */
    final long startedNanos;

    private List<CompletableFuture<Lookup>> waiters = new ArrayList<>(0);
    private boolean done;
    /** The result it ended with, for lookups that join after the end and before it is stored. */
    private CacheEntry outcome;

    FillTicket(CacheKey key, CachePolicy policy, Set<QualifiedTable> tables, long since, long fill, long startedNanos) {
        this.key = key;
        this.policy = policy;
        this.tables = tables;
        this.since = since;
        this.fill = fill;
        this.startedNanos = startedNanos;
    }

    /**
     * A stage for one more waiter; once the fill finished, one already completed with its result,
     * or {@code null} when it ended without one (or the result is gone).
     */
    synchronized CompletableFuture<Lookup> join() {
        if (done) {
            ByteBuf result = outcome != null ? outcome.retainedDuplicate() : null;
            return result == null ? null : CompletableFuture.completedFuture(new Lookup.Hit(result));
        }
        CompletableFuture<Lookup> waiter = new CompletableFuture<>();
        waiters.add(waiter);
        return waiter;
    }

    /**
     * Ends the fill once with {@code result} (null: none): the waiters to answer, or {@code null}
     * when it had already ended.
     */
    synchronized List<CompletableFuture<Lookup>> finish(CacheEntry result) {
        if (done) {
            return null;
        }
        done = true;
        outcome = result;
        List<CompletableFuture<Lookup>> joined = waiters;
        waiters = List.of();
        return joined;
    }

    @Override
    public String toString() {
        return "FillTicket[" + key.digestText() + "]";
    }
}
