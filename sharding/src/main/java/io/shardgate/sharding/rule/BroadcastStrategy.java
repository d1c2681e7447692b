package io.shardgate.sharding.rule;

import java.util.List;

/**
 * YAML {@code strategy: broadcast}: a reference table copied to every listed hostgroup; reads go to
 * any one of them, writes to all.
 */
public record BroadcastStrategy(List<Integer> hostgroups) implements ShardingStrategy {
    public BroadcastStrategy {
        hostgroups = hostgroups.stream().distinct().sorted().toList();
    }

    @Override
    public String kind() {
        return "broadcast";
    }
}
