package io.shardgate.sharding.rule;

import java.util.List;

/** How the rows of one logical table are placed on hostgroups. */
public sealed interface ShardingStrategy permits SingleStrategy, KeyedStrategy, BroadcastStrategy {

    /** The YAML name of the strategy: {@code table}, {@code hash}, {@code range}, {@code broadcast}. */
    String kind();

    /** Every hostgroup that holds rows (or a copy) of the table, ascending, without duplicates. */
    List<Integer> hostgroups();
}
