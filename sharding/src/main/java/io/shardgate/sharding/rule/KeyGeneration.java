package io.shardgate.sharding.rule;

/** How the router fills the sharding key of an INSERTed row that has none ({@code key_generation}). */
public enum KeyGeneration {
    /** The key is required: an INSERT without it is refused. */
    NONE,
    /** A snowflake id (timestamp, router node id, sequence): unique across the routers of a cluster. */
    SNOWFLAKE
}
