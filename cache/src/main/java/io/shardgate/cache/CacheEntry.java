package io.shardgate.cache;

import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import java.util.Set;

/**
 * One stored result: the complete response as framed packets in a read-only buffer the cache owns
 * one reference of, and what invalidates it. Identity equality: the table index and conditional
 * removals must tell two results stored under one key apart.
 */
final class CacheEntry {
    final CacheKey key;
    final CachePolicy policy;
    final Set<QualifiedTable> tables;
    /** The invalidation tick its fill noted before querying the backend. */
    final long since;
    /** Fill order: a fill that started later replaces, never the reverse. */
    final long fill;

    final int weight;
    private final ByteBuf response;
    /** Set by the removal listener before it unindexes; a late indexer checks it and unindexes. */
    volatile boolean removed;

    CacheEntry(CacheKey key, CachePolicy policy, Set<QualifiedTable> tables, long since, long fill, ByteBuf response) {
        this.key = key;
        this.policy = policy;
        this.tables = tables;
        this.since = since;
        this.fill = fill;
        this.response = response;
        this.weight = response.capacity() + key.weight(); // the memory held, slack included
    }

    int size() {
        return response.readableBytes();
    }

    /**
     * A retained read-only duplicate for one writer, or {@code null} when the cache released the
     * buffer between the lookup and this call (an eviction racing the hit): the caller then treats
     * the lookup as a miss.
     */
    ByteBuf retainedDuplicate() {
        if (response.refCnt() == 0) {
            return null;
        }
        try {
            return response.retainedDuplicate();
        } catch (IllegalReferenceCountException released) {
            // Netty has no try-retain; retaining a released buffer throws without resurrecting it
            return null;
        }
    }

    /** Drops the cache's own reference (once, from the removal listener or a rejected store). */
    void release() {
        response.release();
    }
}
