package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardgate.move.TableCopy;
import io.shardgate.router.Shardgate;
import io.shardgate.router.move.MoveRecord;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A move outlives its source shard's restart: hostgroup 30 takes buckets 12-13 of {@code orders}
 * from hostgroup 20 while that shard's MariaDB is shut down and started again in the middle of the
 * copy, then buckets 14-15 while it restarts in the middle of the catch-up (held there by a row
 * lock the test keeps, as in {@link MoveRouterKillIT}). Clients read and write through the router
 * throughout. The move resumes from its checkpoints and ends done; every acknowledged write is there
 * once, on the shard the new rules name, and the shards equal the unsharded reference. Clients see
 * errors only while the shard is down (counted and printed); a write whose statement failed is
 * uncertain, and the client makes the reference hold what the router then shows for it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MoveSourceRestartIT {
    private static final Duration PATIENCE = MoveProbe.PATIENCE;
    private static final String ROOT = "/shardgate/move-source-restart-it";
    private static final int BUCKETS = MoveCluster.BUCKETS;
    private static final int ROWS = 20_000;
    private static final int CLIENTS = 4;
    private static final int KEYS_PER_CLIENT = 400;

    @TempDir
    static Path dir;

    private static MoveCluster cluster;
    private static MoveShards shards;
    private static MoveProbe probe;
    private static Shardgate router;
    private static int[] owner;

    @BeforeAll
    static void start() throws Exception {
        cluster = MoveCluster.start(
                dir,
                ROOT,
                ROWS,
                // a stopped shard refuses connections at once; a slow check on a loaded machine is no failure
                "pool: {acquire_timeout_millis: 3000},"
                        + " monitor: {interval_millis: 200, timeout_millis: 3000, shun_after_failures: 2}");
        shards = cluster.shards;
        probe = cluster.probe;
        router = cluster.router;
        owner = cluster.owner;
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void aMoveSurvivesItsSourceRestartedMidCopy() throws Exception {
        moveWithTheSourceRestarted(0, 12, 13, 2000, id -> {
            MoveRecord copying = probe.awaitRecord(id, r -> MoveProbe.copyProgress(r) != null);
            TableCopy.Progress p = MoveProbe.copyProgress(copying);
            assertThat(p.done()).as("the copy has chunks left").isFalse();
            return () -> {};
        });
    }

    @Test
    @Order(2)
    void aMoveSurvivesItsSourceRestartedMidCatchUp() throws Exception {
        long row = MoveProbe.firstKeyIn(ROWS / 4, BUCKETS, 14, 15);
        moveWithTheSourceRestarted(1, 14, 15, 2000, id -> {
            String change = "UPDATE orders SET amount = amount + 1000000 WHERE id = " + row;
            Connection lock = probe.holdTheCatchUp(
                    id,
                    row,
                    () -> {
                        try (Connection c = client();
                                Statement s = c.createStatement()) {
                            assertThat(s.executeUpdate(change)).isEqualTo(1);
                        }
                        try (Connection c = reference();
                                Statement s = c.createStatement()) {
                            s.executeUpdate(change);
                        }
                    },
                    shards.direct(20));
            // the copy ended and the catch-up runs: it cannot get past the locked row
            probe.awaitRecord(id, r -> r.state().equals("catching_up"));
            return () -> {
                try {
                    lock.close(); // the shard's stop ended its transaction
                } catch (SQLException gone) {
                    // as expected
                }
            };
        });
    }

    /** What a phase does before the restart; returns what to undo once the shard is down. */
    @FunctionalInterface
    private interface BeforeRestart {
        AutoCloseable arrange(String id) throws Exception;
    }

    private void moveWithTheSourceRestarted(
            int round, int lo, int hi, int copyRowsPerSecond, BeforeRestart beforeRestart) throws Exception {
        List<List<Long>> keys = MoveLoad.ownKeys(round, CLIENTS, KEYS_PER_CLIENT);
        MoveLoad load = new MoveLoad(router::mysqlPort, MoveSourceRestartIT::reference, keys, round);
        MoveRecord atStop;
        MoveRecord afterStart;
        long downMillis;
        JsonNode done;
        try {
            load.awaitMore(100, PATIENCE.toSeconds());
            String id = probe.start(router.httpPort(), lo, hi, copyRowsPerSecond);
            AutoCloseable undo = beforeRestart.arrange(id);
            load.faultOn(true);
            long stopped = System.nanoTime();
            shards.stop(20);
            atStop = probe.record(id);
            undo.close();
            shards.restart(20);
            awaitShardServed(20);
            downMillis = (System.nanoTime() - stopped) / 1_000_000;
            load.faultOn(false);
            afterStart = probe.record(id);
            done = probe.awaitEnd(router.httpPort(), id);
            load.awaitMore(200, PATIENCE.toSeconds()); // the clients go on under the new rules
        } finally {
            load.close();
        }
        assertThat(done.get("state").asText()).as("the move: %s", done).isEqualTo("done");
        for (int b = lo; b <= hi; b++) {
            owner[b] = 30;
        }
        List<MoveLoad.ClientError> outside =
                load.errors.stream().filter(e -> !e.duringFault()).toList();
        assertThat(outside).as("client errors while the shard was up").isEmpty();
        assertThat(load.wrongReads)
                .as("reads that missed the client's own last write")
                .isEmpty();
        OrdersContents contents = cluster.contents();
        assertThat(contents.misplaced())
                .as(
                        "rows away from the shard the rules name (%d)",
                        contents.misplaced().size())
                .isEqualTo(List.of());
        assertThat(contents.duplicated()).as("rows on several shards").isEqualTo(List.of());
        assertThat(OrdersContents.first(contents.differences()))
                .as(
                        "differences from the reference (%d)",
                        contents.differences().size())
                .isEqualTo(List.of());
        java.util.Map<Integer, Long> codes = new java.util.TreeMap<>();
        java.util.Map<Integer, String> firstMessage = new java.util.TreeMap<>();
        load.errors.forEach(e -> {
            codes.merge(e.code(), 1L, Long::sum);
            firstMessage.putIfAbsent(
                    e.code(), e.message().substring(0, Math.min(160, e.message().length())));
        });
        System.out.printf(
                "MoveSourceRestartIT: buckets %d-%d, source restarted while %s (down and back in the router %d ms,"
                        + " move %s right after); done: rows copied %d, binlog rows %d, resumed %d times, rows"
                        + " deleted on the source %d, statements held %d ms; clients: %d writes acknowledged, %d"
                        + " reads, %d errors while the shard was down (by code %s), %d rows left uncertain and"
                        + " settled from the router, 0 errors otherwise; rows per hostgroup %s, reference diff"
                        + " empty; first message by code: %s%n",
                lo,
                hi,
                atStop.state(),
                downMillis,
                afterStart.state(),
                done.path("progress").path("rows_copied").asLong(),
                done.path("progress").path("binlog_rows").asLong(),
                done.path("progress").path("resumed").asLong(),
                done.path("progress").path("rows_deleted_on_source").asLong(),
                done.path("progress").path("hold_millis").asLong(),
                load.acknowledged.get(),
                load.reads.get(),
                load.errors.size(),
                codes,
                load.uncertain.get(),
                contents.perHostgroup(),
                firstMessage);
        assertThat(atStop.state()).as("the phase the restart hit").isIn("copying", "catching_up");
        assertThat(done.path("progress").path("resumed").asLong())
                .as("the move resumed after the restart")
                .isPositive();
    }

    /** Waits until a read of a row on {@code hostgroup} runs through the router again. */
    private static void awaitShardServed(int hostgroup) throws Exception {
        long key = MoveProbe.firstKeyIn(ROWS / 2, BUCKETS, 8, 11);
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            try (Connection c = client();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id FROM orders WHERE id = " + key)) {
                rs.next();
                return;
            } catch (SQLException e) {
                if (System.nanoTime() > end) {
                    throw new AssertionError("hostgroup " + hostgroup + " not served again: " + e, e);
                }
                Thread.sleep(100);
            }
        }
    }

    private static Connection client() throws SQLException {
        return cluster.client();
    }

    private static Connection reference() throws SQLException {
        return cluster.reference();
    }
}
