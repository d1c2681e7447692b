package io.shardgate.sharding.rule;

/**
 * A logical table and the strategy that places its rows; {@code name} as written in the rule.
 *
 * @param keyGeneration whether the router generates the sharding key of rows inserted without one
 */
public record TableRule(String name, ShardingStrategy strategy, KeyGeneration keyGeneration) {

    public TableRule(String name, ShardingStrategy strategy) {
        this(name, strategy, KeyGeneration.NONE);
    }

    /** The key strategy, or {@code null} for {@code table} and {@code broadcast} tables. */
    public KeyedStrategy keyed() {
        return strategy instanceof KeyedStrategy k ? k : null;
    }

    /** Whether rows are spread over several hostgroups by a key. */
    public boolean sharded() {
        return strategy instanceof KeyedStrategy;
    }

    /** Whether an INSERT may omit the key (or give NULL / DEFAULT) and get a generated one. */
    public boolean generatesKeys() {
        return keyGeneration != KeyGeneration.NONE;
    }
}
