package io.shardgate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.plan.Route;
import io.shardgate.sharding.plan.Targets;
import org.junit.jupiter.api.Test;

/**
 * Runs each benchmark's setup, one invocation and its teardown, outside JMH: the setups check
 * that what is measured is the real thing (routes, packet counts, completed responses) and these
 * tests check the invocations' results, so a broken benchmark fails the build instead of
 * publishing a fast number. Measures nothing.
 */
class BenchmarkSetupTest {
    @Test
    void digestCoversAPointSelectAndTwoStatementsOfAboutOneKiB() {
        DigestBenchmark b = new DigestBenchmark();
        for (String statement : new String[] {"point-select", "insert-1k", "select-in-1k"}) {
            b.statement = statement;
            b.setUp();
            assertThat(b.digest().text()).doesNotContain("4242", "100001", "10000");
        }
        b.statement = "insert-1k";
        b.setUp();
        assertThat(Statements.bulkInsert().length()).isBetween(900, 1200);
        assertThat(Statements.selectInList().length()).isBetween(900, 1200);
        assertThat(b.digest().slotCount()).isEqualTo(20);
    }

    @Test
    void planCacheHitRoutesBySbtestTableAndByHashKey() {
        PlanCacheHitBenchmark b = new PlanCacheHitBenchmark();
        b.layout = "table";
        b.setUp();
        assertThat(b.hit().hostgroups()).containsExactly(10);
        b.layout = "hash";
        b.setUp();
        Targets targets = b.lookupAndTargets();
        assertThat(targets.error()).isNull();
        assertThat(targets.hostgroups()).hasSize(1).containsAnyOf(10, 20);
    }

    @Test
    void coldPlanBuildsEachStatementsRoute() {
        ColdPlanBenchmark b = new ColdPlanBenchmark();
        b.statement = "binding-join";
        b.setUp();
        assertThat(b.plan().route()).isInstanceOf(Route.ByKey.class);
        b.statement = "group-order-limit";
        b.setUp();
        assertThat(b.plan().describe()).contains("\"group_by\"", "\"order_by\"", "\"limit\"");
    }

    @Test
    void frameDecoderSplitsTheHundredRowResultIntoItsPackets() {
        PacketFrameDecoderBenchmark b = new PacketFrameDecoderBenchmark();
        b.setUp();
        assertThat(b.decode()).isEqualTo(SysbenchRangeResult.ROWS + 4);
        assertThat(b.baselinePipeline()).isEqualTo(1);
        b.tearDown();
    }

    @Test
    void frameEncoderFramesSmallPacketsAndSlicesLargeOnes() {
        PacketFrameEncoderBenchmark b = new PacketFrameEncoderBenchmark();
        b.packets = "rows-100";
        b.setUp();
        assertThat(b.encode()).isEqualTo(SysbenchRangeResult.ROWS + 4);
        b.tearDown();
        b.packets = "blob-64k";
        b.setUp();
        assertThat(b.encode()).isEqualTo(2); // header buffer + payload slice
        b.tearDown();
    }

    @Test
    void packetWriterAddsTheFourByteHeader() {
        PacketWriterBenchmark b = new PacketWriterBenchmark();
        b.packet = "com-query";
        b.setUp();
        assertThat(b.frame()).isEqualTo(4 + 1 + Statements.POINT_SELECT.length());
    }

    @Test
    void responseScannerFindsTheEndOfEachResponse() {
        ResponseScannerBenchmark b = new ResponseScannerBenchmark();
        for (String response : new String[] {"rows-100", "ok"}) {
            for (boolean deprecateEof : new boolean[] {true, false}) {
                b.response = response;
                b.deprecateEof = deprecateEof;
                b.setUp();
                assertThat(b.scan()).isEqualTo(b.baselineFrameWalk()).isPositive();
                b.tearDown();
            }
        }
    }

    @Test
    void cacheHitWritesTheStoredOneRowResponse() {
        CacheHitBenchmark b = new CacheHitBenchmark();
        b.setUp();
        try {
            // column count, 4 column definitions, one row, the closing OK
            assertThat(b.response[3]).isEqualTo((byte) 1);
            long first = b.hit();
            assertThat(first).isEqualTo(b.response.length);
            assertThat(b.hit()).isEqualTo(2L * b.response.length);
            assertThat(b.baselineWrite()).isEqualTo(3L * b.response.length);
            assertThat(b.baselineDigest().text()).isEqualTo("SELECT c FROM sbtest1 WHERE id = ?");
        } finally {
            b.tearDown();
        }
    }

    @Test
    void multiShardMergeAnswersAsTheBufferedMergeInBothProtocols() {
        MultiShardMergeBenchmark b = new MultiShardMergeBenchmark();
        for (String protocol : new String[] {"text", "binary"}) {
            b.protocol = protocol;
            b.setUp(); // checks both merges byte for byte against ShardResultMerger
            try {
                long answer = b.orderBy();
                assertThat(answer).isEqualTo(b.orderBy()).isPositive();
                // every shard byte is moved once; the answer drops three shards' headers and terminators
                assertThat(b.baselineCopy()).isGreaterThan(answer);
                assertThat(b.grouped()).isPositive().isLessThan(answer);
            } finally {
                b.tearDown();
            }
        }
    }
}
