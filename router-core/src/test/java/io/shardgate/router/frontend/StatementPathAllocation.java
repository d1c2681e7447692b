package io.shardgate.router.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelPipeline;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.twophase.DecisionTable;
import io.shardgate.router.twophase.RouterEpochs;
import io.shardgate.router.twophase.TwoPhase;
import io.shardgate.router.twophase.TwoPhaseMetrics;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Counts the bytes a client session's thread allocates for one statement on a plan-cache hit, from
 * the decoded COM_QUERY packet to the statement written towards the backend: a real {@link
 * FakeShardsSession} (the frame decoder, {@link FrontendSession}, QueryRouter, the lease, the
 * backend connection's pipeline) on recording fake shards. The backend's answer, relayed to the
 * client, is outside the count (the fake allocates for its records).
 *
 * <p>A program of its own ({@link #main}, printing {@code allocated=N}) because
 * StatementPathAllocationTest runs it in a JVM without escape analysis: then every allocation the
 * code makes is counted, the same on every run and machine, where with it the count moves by tens
 * of bytes between runs as the JIT happens to inline (and scalar-replace) or not.
 */
public final class StatementPathAllocation {
    /** sbtest1 hash-sharded on id, sbtest2 range-sharded on id, both over hostgroups 10 and 20. */
    static final String SHARDED = """
            users: [{name: app, password: secret}]
            hostgroups:
              - {id: 10, writer: "fake10:3306", user: sg}
              - {id: 20, writer: "fake20:3306", user: sg}
            schemas:
              - name: sbtest
                default_hostgroup: 10
                tables:
                  - {name: sbtest1, strategy: hash, column: id, buckets: 1024, hostgroups: {10: "0-511", 20: "512-1023"}}
                  - {name: sbtest2, strategy: range, column: id, ranges: [{below: 1000000, hostgroup: 10}, {hostgroup: 20}]}
            """;
    /** One hostgroup, no table rules: every statement goes to the schema's default hostgroup. */
    static final String UNSHARDED = """
            users: [{name: app, password: secret}]
            hostgroups:
              - {id: 10, writer: "fake10:3306", user: sg}
            schemas:
              - {name: sbtest, default_hostgroup: 10}
            """;

    /** The statements measured, by the name the test passes. */
    enum Scenario {
        /** sysbench oltp_point_select's text. */
        POINT_SELECT(SHARDED, id -> "SELECT c FROM sbtest1 WHERE id=" + id),
        /** sysbench's simple range, within one range of sbtest2. */
        RANGE_SELECT(SHARDED, id -> "SELECT c FROM sbtest2 WHERE id BETWEEN " + id + " AND " + (id + 99)),
        /** sysbench oltp_update_index's text, autocommit. */
        UPDATE_BY_KEY(SHARDED, id -> "UPDATE sbtest1 SET k=k+1 WHERE id=" + id),
        /** oltp_point_select through a router with one hostgroup and no sharding rules. */
        UNSHARDED_POINT_SELECT(UNSHARDED, id -> "SELECT c FROM sbtest1 WHERE id=" + id);

        final String yaml;
        final IntFunction<String> statement;

        Scenario(String yaml, IntFunction<String> statement) {
            this.yaml = yaml;
            this.statement = statement;
        }
    }

    /** Distinct key values, so each statement carries other literals (and hits the same plan). */
    private static final int IDS = 1024;

    private static final int WARMUP = 30_000;
    private static final int ROUNDS = 5;
    private static final int STATEMENTS = 4_000;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final FakeShardsSession session;
    private final byte[][] texts = new byte[IDS][];

    private StatementPathAllocation(Scenario scenario) {
        session = new FakeShardsSession(scenario.yaml, "sbtest", noTwoPhase());
        for (int i = 0; i < IDS; i++) {
            texts[i] = scenario.statement.apply(1 + 7919 * i).getBytes(StandardCharsets.UTF_8);
        }
    }

    /** Prints {@code allocated=N}, N the bytes per statement of the scenario named {@code args[0]}. */
    public static void main(String[] args) throws Exception {
        Scenario scenario = Scenario.valueOf(args[0]);
        long[] least = {-1};
        Throwable[] failure = {null};
        // a thread of the kind the router's event loops run on: Netty's recyclers, thread caches and
        // temporary arrays serve only those, elsewhere every pooled object would count as allocated
        Thread loop = new FastThreadLocalThread(() -> {
            try {
                StatementPathAllocation measure = new StatementPathAllocation(scenario);
                try {
                    least[0] = measure.leastPerStatement();
                } finally {
                    measure.session.close(); // fails when a buffer was left unreleased
                }
            } catch (Throwable t) {
                failure[0] = t;
            }
        });
        loop.start();
        loop.join();
        if (failure[0] != null) {
            failure[0].printStackTrace();
            System.exit(1);
        }
        System.out.println(scenario + " (" + scenario.statement.apply(1) + "): allocated=" + least[0]);
        System.exit(0);
    }

    /** Two-phase commit unavailable (no ZooKeeper): the schemas are best_effort. */
    private static TwoPhase noTwoPhase() {
        return new TwoPhase(
                7,
                new RouterEpochs(null, "/shardgate"),
                new DecisionTable(),
                new TwoPhaseMetrics(new SimpleMeterRegistry()));
    }

    /**
     * Warms the path up, then measures {@link #ROUNDS} rounds of {@link #STATEMENTS} statements and
     * returns the least round's bytes per statement (a GC or a deoptimisation in one round only raises
     * that round).
     */
    private long leastPerStatement() {
        ChannelPipeline client = session.shard(10).client().pipeline();
        // under the tracking allocator and the configured leak detection (PARANOID in the build): the
        // path is checked for leaks and for its target before it is measured
        for (int i = 0; i < WARMUP; i++) {
            run(client, texts[i % IDS], i < IDS);
        }
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        // measured as it runs in production: the default allocator, and no leak records (a stack
        // trace per touch at PARANOID would be counted as the router's allocation)
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        allocateFrom(ByteBufAllocator.DEFAULT);
        long least = Long.MAX_VALUE;
        try {
            for (int round = 0; round < ROUNDS; round++) {
                long bytes = 0;
                for (int i = 0; i < STATEMENTS; i++) {
                    bytes += run(client, texts[i % IDS], false);
                }
                least = Math.min(least, bytes / STATEMENTS);
            }
        } finally {
            allocateFrom(null);
            ResourceLeakDetector.setLevel(level);
        }
        clearSent();
        for (int i = 0; i < IDS; i++) { // and checked again after the measured rounds
            run(client, texts[i], true);
        }
        return least;
    }

    /**
     * The client sends {@code text}; returns the bytes this thread allocated until the statement was
     * written to its backend connection. The fake shards answer afterwards; {@code check}: asserts
     * that exactly that statement reached a shard.
     */
    private long run(ChannelPipeline client, byte[] text, boolean check) {
        // the socket's read buffer, from the allocator the router's channels read with (a retained
        // slice of a pooled buffer is recycled, one of an unpooled buffer is a new object)
        ByteBuf packet = ByteBufAllocator.DEFAULT.directBuffer(5 + text.length);
        packet.writeMediumLE(1 + text.length).writeByte(0).writeByte(Command.COM_QUERY.code());
        packet.writeBytes(text);
        long before = THREADS.getCurrentThreadAllocatedBytes();
        client.fireChannelRead(packet);
        client.fireChannelReadComplete();
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        if (check) {
            List<String> sent = new ArrayList<>(session.shard(10).sent());
            if (session.shard(20) != null) {
                sent.addAll(session.shard(20).sent());
            }
            assertThat(sent).containsExactly("COM_QUERY " + new String(text, StandardCharsets.UTF_8));
        }
        session.settle();
        assertThat(packet.refCnt()).as("the client's packet is released").isZero();
        session.relayed();
        if (check) {
            clearSent();
        }
        return allocated;
    }

    private void allocateFrom(ByteBufAllocator allocator) {
        session.shard(10).allocateFrom(allocator);
        if (session.shard(20) != null) {
            session.shard(20).allocateFrom(allocator);
        }
    }

    private void clearSent() {
        session.shard(10).clearSent();
        if (session.shard(20) != null) {
            session.shard(20).clearSent();
        }
    }
}
