package io.shardgate.sharding.rule;

/** A logical table and the strategy that places its rows; {@code name} as written in the rule. */
public record TableRule(String name, ShardingStrategy strategy) {

    /** The key strategy, or {@code null} for {@code table} and {@code broadcast} tables. */
    public KeyedStrategy keyed() {
        return strategy instanceof KeyedStrategy k ? k : null;
    }

    /** Whether rows are spread over several hostgroups by a key. */
    public boolean sharded() {
        return strategy instanceof KeyedStrategy;
    }
}
