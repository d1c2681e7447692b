package io.shardgate.sharding.plan;

import java.util.List;

/**
 * One hostgroup a statement runs on; for a split multi-row INSERT, the rows (0-based, in VALUES
 * order) that go there, otherwise empty (the whole statement).
 */
public record Target(int hostgroup, List<Integer> rows) {
    public Target {
        rows = List.copyOf(rows);
    }

    public static Target of(int hostgroup) {
        return new Target(hostgroup, List.of());
    }
}
