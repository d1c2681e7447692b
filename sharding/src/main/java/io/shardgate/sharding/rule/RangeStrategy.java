package io.shardgate.sharding.rule;

import java.util.List;

/**
 * YAML {@code strategy: range}: an integer key column cut into consecutive ranges. Range {@code i}
 * holds keys {@code k} with {@code below[i-1] <= k < below[i]} (lower bound inclusive, upper bound
 * exclusive); the first range starts at the smallest long, and a last range without {@code below}
 * is unbounded. Keys at or above the last {@code below} belong to no hostgroup.
 */
public record RangeStrategy(String column, List<Shard> ranges) implements KeyedStrategy {

    /** One range: keys below {@code below} (exclusive; {@code null} = unbounded) down to the previous. */
    public record Shard(Long below, int hostgroup) {}

    public RangeStrategy {
        ranges = List.copyOf(ranges);
    }

    @Override
    public String kind() {
        return "range";
    }

    @Override
    public KeyType keyType() {
        return KeyType.INTEGER;
    }

    @Override
    public List<Integer> hostgroups() {
        return ranges.stream().map(Shard::hostgroup).distinct().sorted().toList();
    }

    @Override
    public int hostgroupOf(Object value) {
        Long key = KeyValues.toInteger(value);
        if (key == null) {
            return -1;
        }
        for (Shard shard : ranges) {
            if (shard.below() == null || key < shard.below()) {
                return shard.hostgroup();
            }
        }
        return -1;
    }

    /**
     * Hostgroups of the ranges overlapping {@code [lower, upper]} (both inclusive; {@code null} is
     * unbounded), ascending.
     */
    public List<Integer> hostgroupsBetween(Long lower, Long upper) {
        long from = lower == null ? Long.MIN_VALUE : lower;
        long to = upper == null ? Long.MAX_VALUE : upper;
        long start = Long.MIN_VALUE;
        if (from > to) {
            return List.of();
        }
        java.util.TreeSet<Integer> result = new java.util.TreeSet<>();
        for (Shard shard : ranges) {
            // shard covers [start, below - 1]
            long end = shard.below() == null ? Long.MAX_VALUE : shard.below() - 1;
            if (shard.below() == null || shard.below() > start) {
                if (from <= end && to >= start) {
                    result.add(shard.hostgroup());
                }
            }
            if (shard.below() == null) {
                break;
            }
            start = shard.below();
        }
        return List.copyOf(result);
    }

    @Override
    public boolean placesAlike(KeyedStrategy other) {
        return other instanceof RangeStrategy r && r.ranges.equals(ranges);
    }
}
