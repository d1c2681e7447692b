package io.shardgate.cache;

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

    FillTicket(CacheKey key, CachePolicy policy, Set<QualifiedTable> tables, long since, long fill, long startedNanos) {
        this.key = key;
        this.policy = policy;
        this.tables = tables;
        this.since = since;
        this.fill = fill;
        this.startedNanos = startedNanos;
    }

    /** A stage for one more waiter, or {@code null} when the fill already finished. */
    synchronized CompletableFuture<Lookup> join() {
        if (done) {
            return null;
        }
        CompletableFuture<Lookup> waiter = new CompletableFuture<>();
        waiters.add(waiter);
        return waiter;
    }

    /** Ends the fill once: the waiters to answer, or {@code null} when it had already ended. */
    synchronized List<CompletableFuture<Lookup>> finish() {
        if (done) {
            return null;
        }
        done = true;
        List<CompletableFuture<Lookup>> joined = waiters;
        waiters = List.of();
        return joined;
    }

    @Override
    public String toString() {
        return "FillTicket[" + key.digestText() + "]";
    }
}
