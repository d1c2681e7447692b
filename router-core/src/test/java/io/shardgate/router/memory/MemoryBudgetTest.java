package io.shardgate.router.memory;

import static io.shardgate.router.memory.MemoryBudget.MIB;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.config.RouterConfig;
import org.junit.jupiter.api.Test;

/** The router's memory limits follow its configuration, not the machine it runs on. */
class MemoryBudgetTest {
    @Test
    void theDemandCountsEveryServersPoolAndTheCacheOnlyWhenEnabled() {
        MemoryDemand demand = MemoryDemand.of(RouterConfig.parse("""
                server: {max_connections: 1000, max_allowed_packet: 1048576, max_merge_bytes: 65536}
                users:
                  - {name: app, password: secret}
                hostgroups:
                  - {id: 10, writer: "db1:3307", user: sg, password: pw, pool: {max_connections: 50},
                     readers: ["db2:3307", {address: "db3:3307", max_connections: 7}]}
                  - {id: 20, writer: "db4:3307", user: sg, password: pw}
                cache: {enabled: false, max_bytes: 1073741824}
                """));
        assertThat(demand).isEqualTo(new MemoryDemand(1000, 50 + 50 + 7 + 200, 0, 65536, 1048576));
        String cacheOn = "users: [{name: app, password: pw}]\nhostgroups: [{id: 10, writer: \"db:3306\", user: sg}]\n"
                + "cache: {enabled: true, max_bytes: 1073741824}\n";
        assertThat(MemoryDemand.of(RouterConfig.parse(cacheOn)).cacheBytes()).isEqualTo(1L << 30);
    }

    @Test
    void theHeapsBoundAddsSessionsPoolsCacheAndOneMerge() {
        MemoryDemand small = new MemoryDemand(100, 10, 0, 1 << 20, 1 << 20);
        MemoryBudget budget = MemoryBudget.of(small, 0);
        long expected = MemoryBudget.BASE_HEAP
                + 100 * MemoryBudget.HEAP_PER_CLIENT
                + 10 * MemoryBudget.HEAP_PER_BACKEND
                + (1 << 20);
        assertThat(budget.heapMaxBytes()).isEqualTo((expected + MIB - 1) / MIB * MIB);
        // each term grows the bound by what it asks
        assertThat(MemoryBudget.of(new MemoryDemand(1100, 10, 0, 1 << 20, 1 << 20), 0)
                        .heapMaxBytes())
                .isGreaterThanOrEqualTo(budget.heapMaxBytes() + 1000 * MemoryBudget.HEAP_PER_CLIENT - MIB);
        assertThat(MemoryBudget.of(new MemoryDemand(100, 10, 400 * MIB, 1 << 20, 1 << 20), 0)
                        .heapMaxBytes())
                .isEqualTo(budget.heapMaxBytes() + 500 * MIB);
    }

    @Test
    void theInitialHeapIsTheFixedPartSoResidentMemoryFollowsUse() {
        MemoryBudget budget = MemoryBudget.of(new MemoryDemand(10_000, 200, 256 * MIB, 256 * MIB, 64 << 20), 0);
        assertThat(budget.heapInitialBytes()).isEqualTo(MemoryBudget.BASE_HEAP);
        assertThat(budget.heapMaxBytes()).isGreaterThan(512 * MIB);
    }

    @Test
    void anOverrideReplacesTheHeapsBoundAndTheInitialHeapStaysBelowIt() {
        MemoryDemand demand = new MemoryDemand(10_000, 200, 0, 256 * MIB, 64 << 20);
        MemoryBudget budget = MemoryBudget.of(demand, 48 * MIB);
        assertThat(budget.heapMaxBytes()).isEqualTo(48 * MIB);
        assertThat(budget.heapInitialBytes()).isEqualTo(48 * MIB);
        assertThat(MemoryBudget.of(demand, 2048 * MIB).heapMaxBytes()).isEqualTo(2048 * MIB);
    }

    @Test
    void directMemoryCoversEachBackendsRelayAndTwoLargestPackets() {
        MemoryBudget budget = MemoryBudget.of(new MemoryDemand(10_000, 200, 0, 256 * MIB, 64 << 20), 0);
        assertThat(budget.directMaxBytes())
                .isEqualTo(MemoryBudget.BASE_DIRECT + 200 * MemoryBudget.DIRECT_PER_BACKEND + 128 * MIB);
    }

    @Test
    void theOptionsSayTheSizesInMebibytes() {
        assertThat(new MemoryBudget(64 * MIB, 300 * MIB, 90 * MIB).jvmOptions())
                .containsExactly("-Xms64m", "-Xmx300m", "-XX:MaxDirectMemorySize=90m");
    }
}
