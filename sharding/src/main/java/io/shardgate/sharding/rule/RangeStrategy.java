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
        for (int i = 0; i < ranges.size(); i++) { // indexed: no iterator per statement
            Shard shard = ranges.get(i);
            if (shard.below() == null || key < shard.below()) {
                return shard.hostgroup();
            }
        }
        return -1;
    }

    /** {@link #soleHostgroupBetween}: no range overlaps the bounds. */
    public static final int NO_HOSTGROUP = -1;

    /** {@link #soleHostgroupBetween}: ranges of several hostgroups overlap the bounds. */
    public static final int SEVERAL_HOSTGROUPS = -2;

    /**
     * The hostgroup of the ranges overlapping {@code [lower, upper]} (as {@link #hostgroupsBetween})
     * when they are all on one, found without building a set (most range reads stay on one shard);
     * {@link #NO_HOSTGROUP} or {@link #SEVERAL_HOSTGROUPS} otherwise.
     */
    public int soleHostgroupBetween(Long lower, Long upper) {
        long from = lower == null ? Long.MIN_VALUE : lower;
        long to = upper == null ? Long.MAX_VALUE : upper;
        if (from > to) {
            return NO_HOSTGROUP;
        }
        int sole = NO_HOSTGROUP;
        long start = Long.MIN_VALUE;
        for (int i = 0; i < ranges.size(); i++) {
            Shard shard = ranges.get(i);
            long end = shard.below() == null ? Long.MAX_VALUE : shard.below() - 1;
            if ((shard.below() == null || shard.below() > start) && from <= end && to >= start) {
                if (sole != NO_HOSTGROUP && sole != shard.hostgroup()) {
                    return SEVERAL_HOSTGROUPS;
                }
                sole = shard.hostgroup();
            }
            if (shard.below() == null) {
                break;
            }
            start = shard.below();
        }
        return sole;
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
