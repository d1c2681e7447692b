package io.shardgate.sharding.plan;

import java.util.List;

/**
 * Where one execution of a plan runs, computed from its values. Either a list of targets (ascending
 * hostgroup), of which the executor uses any single one when {@code anyOne} (a read of broadcast
 * tables), or an {@code error} to answer instead (ER_NOT_SUPPORTED_YET), e.g. an INSERT whose key
 * value maps to no hostgroup.
 */
public record Targets(List<Target> targets, boolean anyOne, String error) {
    public Targets {
        targets = List.copyOf(targets);
    }

    public static Targets of(List<Target> targets) {
        return new Targets(targets, false, null);
    }

    public static Targets error(String message) {
        return new Targets(List.of(), false, message);
    }

    /** The target hostgroups, ascending. */
    public List<Integer> hostgroups() {
        return targets.stream().map(Target::hostgroup).toList();
    }
}
