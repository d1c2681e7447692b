package io.shardgate.admin.http;

import io.shardgate.cache.CacheStats;
import java.util.Map;

/**
 * The running router's result cache as operators control it: purges and counters. The router
 * implements it; the HTTP endpoint ({@link CacheEndpoint}) and the SQL admin call it from their
 * own threads, so every method must be thread-safe and must not block on a data-path event loop.
 */
public interface CacheControl {
    /** Whether the {@code cache:} section switched the cache on. */
    boolean enabled();

    /** Drops every stored result; returns how many were held. */
    int purgeAll();

    /** Drops the results read in, or reading a table of, {@code schema}. */
    int purgeSchema(String schema);

    /** Drops the results that read {@code schema.table}. */
    int purgeTable(String schema, String table);

    /** Drops the results cached under query rule {@code rule} (its index in {@code query_rules}). */
    int purgeRule(int rule);

    /** Counters since start, in total; entries and bytes are current. */
    CacheStats stats();

    /** The same per query rule index, for the rules that have cached anything. */
    Map<Integer, CacheStats> statsByRule();
}
