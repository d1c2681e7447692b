package io.shardgate.sharding.key;

/** A source of cluster-unique 64-bit row keys for INSERTs that leave the sharding key to the router. */
@FunctionalInterface
public interface KeyGenerator {

    /**
     * {@code count} new keys, ascending, never handed out before. Consecutive integers when
     * {@code count} fits one millisecond's sequence (4096 for {@link SnowflakeIds}), so a client
     * that derives a multi-row INSERT's keys from the first one (Connector/J does) sees the right ones.
     */
    long[] next(int count);
}
