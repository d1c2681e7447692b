package io.shardgate.sharding.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The {@link Targets} of each hostgroup of a table, and of all of them together, built once when a
 * route is planned: a plan-cache hit then returns a shared immutable value instead of building
 * lists per statement (DESIGN.md: allocation-free plan-cache hits).
 */
final class TargetsByHostgroup {
    private final int[] hostgroups;
    private final Targets[] one;
    private final Targets all;

    TargetsByHostgroup(Collection<Integer> hostgroups) {
        this.hostgroups =
                new TreeSet<>(hostgroups).stream().mapToInt(Integer::intValue).toArray();
        this.one = new Targets[this.hostgroups.length];
        List<Target> every = new ArrayList<>(this.hostgroups.length);
        for (int i = 0; i < this.hostgroups.length; i++) {
            Target target = Target.of(this.hostgroups[i]);
            one[i] = Targets.of(List.of(target));
            every.add(target);
        }
        this.all = Targets.of(every);
    }

    /** The targets of {@code hostgroup} alone; built on the spot for a hostgroup not listed. */
    Targets one(int hostgroup) {
        int i = Arrays.binarySearch(hostgroups, hostgroup);
        return i >= 0 ? one[i] : Targets.of(List.of(Target.of(hostgroup)));
    }

    /** Every hostgroup, ascending. */
    Targets all() {
        return all;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TargetsByHostgroup t && Arrays.equals(t.hostgroups, hostgroups);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(hostgroups);
    }

    @Override
    public String toString() {
        return Arrays.toString(hostgroups);
    }
}
