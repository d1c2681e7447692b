package io.shardgate.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LockEverywhereTest {
    /**
     * Every router sends a multi-shard LOCK TABLES to the shards in one order, hostgroup order: with
     * an order that depends on the JVM (Map.copyOf's), two routers could each hold one shard's locks
     * and wait for the other's. Twenty hostgroups: a hash order is sorted by chance almost never.
     */
    @Test
    void locksTheShardsInHostgroupOrder() {
        Map<Integer, String> statements = new HashMap<>();
        List<Integer> sorted = new ArrayList<>();
        for (int hostgroup = 10; hostgroup <= 200; hostgroup += 10) {
            statements.put(hostgroup, "LOCK TABLES t WRITE");
            sorted.add(hostgroup);
        }

        assertThat(new Decision.LockEverywhere(statements).statements().keySet())
                .containsExactlyElementsOf(sorted);
    }
}
