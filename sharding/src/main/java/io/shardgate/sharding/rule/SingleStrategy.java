package io.shardgate.sharding.rule;

import java.util.List;

/** YAML {@code strategy: table}: the whole table lives on one hostgroup. */
public record SingleStrategy(int hostgroup) implements ShardingStrategy {
    @Override
    public String kind() {
        return "table";
    }

    @Override
    public List<Integer> hostgroups() {
        return List.of(hostgroup);
    }
}
