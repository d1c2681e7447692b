package io.shardgate.cache;

/** What the result cache may do for one statement, as {@link Cacheability} decided it. */
public enum CacheMode {
    /** Answer from the cache when it holds the result; otherwise run it and store the result. */
    USE,
    /** {@code /*wipe*}{@code /} or {@code /*refresh*}{@code /}: run it on the backend and replace the stored result. */
    REFRESH,
    /** Neither read nor store: not a cacheable read, a {@code /*nocache*}{@code /} hint, or a transaction. */
    BYPASS
}
