package io.shardgate.router.memory;

import java.util.ArrayList;
import java.util.List;

/**
 * The router's memory limits, computed from what its configuration asks ({@link MemoryDemand})
 * rather than from the machine: the JVM's defaults take a quarter of the machine's RAM for the heap
 * and as much again for direct buffers, far more than a router beside an application (a sidecar)
 * should be allowed, and the launcher's former {@code -XX:+UseParallelGC -Xms256m} committed 320 MiB
 * of heap before the first client.
 *
 * <p>The maximum heap covers the fixed part (rules, plans, the parser, the embedded ZooKeeper, meters),
 * each client session and backend connection the configuration allows, the result cache's bound and
 * one merge at {@code server.max_merge_bytes}; the initial heap is the fixed part only, so the
 * resident size follows the sessions actually open. Direct memory (Netty's socket buffers) covers
 * each backend connection relaying a result (one socket read and a write queue at its high-water
 * mark) and two packets at {@code max_allowed_packet} being joined. Per-item figures come from
 * {@code benchmarks/sysbench/memory.sh}: the live heap (after a full collection) of a router with one
 * hostgroup was 21 MiB with 100 clients, 25-26 MiB with 1,000 and 35 MiB with 4,096
 * (benchmarks/results/memory-2026-11-28-0305-experiments.md, -0314-experiments.md).
 *
 * @param heapInitialBytes {@code -Xms}
 * @param heapMaxBytes {@code -Xmx}
 * @param directMaxBytes {@code -XX:MaxDirectMemorySize} (also Netty's own bound on its buffers)
 */
public record MemoryBudget(long heapInitialBytes, long heapMaxBytes, long directMaxBytes) {
    static final long MIB = 1L << 20;
    /** A started router's live heap (21 MiB measured) with rules and plans, and room to collect. */
    static final long BASE_HEAP = 64 * MIB;
    /**
     * A client session: ~3.5 KiB measured idle (channel, pipeline, session state); the rest is for a
     * busy one's prepared statements, variables and decoded packets.
     */
    static final long HEAP_PER_CLIENT = 20 << 10;
    /** A pooled backend connection: channel, pipeline, codec and lease state. */
    static final long HEAP_PER_BACKEND = 32 << 10;
    /** Direct buffers of the event loops' allocator caches and the listeners. */
    static final long BASE_DIRECT = 32 * MIB;
    /** A backend connection relaying a result: one 64 KiB socket read and a 64 KiB write queue. */
    static final long DIRECT_PER_BACKEND = 128 << 10;

    /** The budget for {@code demand}; {@code heapMaxOverride} (bytes, 0 for none) replaces the heap's bound. */
    public static MemoryBudget of(MemoryDemand demand, long heapMaxOverride) {
        long heapMax = BASE_HEAP
                + demand.clientConnections() * HEAP_PER_CLIENT
                + demand.backendConnections() * HEAP_PER_BACKEND
                // the cache counts its responses and an estimate of their keys; Caffeine's entries come on top
                + demand.cacheBytes() / 4 * 5
                + demand.maxMergeBytes();
        if (heapMaxOverride > 0) {
            heapMax = heapMaxOverride;
        }
        long direct = BASE_DIRECT + demand.backendConnections() * DIRECT_PER_BACKEND + 2L * demand.maxAllowedPacket();
        return new MemoryBudget(
                Math.min(roundUpToMib(BASE_HEAP), roundUpToMib(heapMax)), roundUpToMib(heapMax), roundUpToMib(direct));
    }

    /** The JVM options that enforce this budget, in MiB. */
    public List<String> jvmOptions() {
        List<String> options = new ArrayList<>();
        options.add("-Xms" + heapInitialBytes / MIB + "m");
        options.add("-Xmx" + heapMaxBytes / MIB + "m");
        options.add("-XX:MaxDirectMemorySize=" + directMaxBytes / MIB + "m");
        return options;
    }

    private static long roundUpToMib(long bytes) {
        return (bytes + MIB - 1) / MIB * MIB;
    }
}
