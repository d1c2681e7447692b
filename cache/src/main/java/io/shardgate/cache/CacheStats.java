package io.shardgate.cache;

/**
 * Counters of the result cache, for one query rule or in total, as the admin tables show them.
 *
 * @param hits lookups answered from a stored result
 * @param waits lookups answered by another session's fill of the same key (single flight)
 * @param misses lookups that had to run on the backend to fill the key
 * @param stores results stored
 * @param rejected results not stored: larger than max_entry_bytes, or invalidated while filling
 * @param evictions results dropped for size or TTL
 * @param invalidations results dropped by a write, a purge or a refresh
 * @param entries results held now
 * @param bytes response bytes held now
 */
public record CacheStats(
        long hits,
        long waits,
        long misses,
        long stores,
        long rejected,
        long evictions,
        long invalidations,
        long entries,
        long bytes) {}
