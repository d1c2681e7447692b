package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A move cuts over while every client is inside a transaction on the moving table, as under
 * sysbench's oltp_read_write: such a transaction holds the table's metadata lock on the source
 * until it commits, so a cutover that held its next statement would wait for a lock that cannot be
 * granted, and every attempt would let go (the move failed after five). The router lets the
 * statements of a transaction that already touched a held table run, and acknowledges the hold only
 * once those transactions have ended; the move must end done with no client error, every
 * acknowledged write once on the shard the new rules name and the shards equal to the unsharded
 * reference.
 */
class MoveUnderTransactionsIT {
    private static final int ROWS = 8_000;
    private static final int CLIENTS = 8;
    private static final int KEYS_PER_CLIENT = 200;

    @TempDir
    static Path dir;

    private static MoveCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = MoveCluster.start(
                dir,
                "/shardgate/move-under-transactions-it",
                ROWS,
                "monitor: {interval_millis: 500, timeout_millis: 3000}");
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aMoveCutsOverWhileEveryClientIsInsideATransactionOnTheTable() throws Exception {
        List<List<Long>> keys = new ArrayList<>();
        for (int client = 0; client < CLIENTS; client++) {
            List<Long> own = new ArrayList<>();
            for (int k = 0; k < KEYS_PER_CLIENT; k++) {
                own.add((long) k * CLIENTS + client + 1);
            }
            keys.add(own);
        }
        // 150 ms after each of a transaction's three statements: nearly always every client is inside
        // one, so a cutover that held their statements could never lock the source (5 attempts, failed)
        MoveLoad load = new MoveLoad(
                cluster.router::mysqlPort,
                cluster::reference,
                keys,
                0,
                150,
                e -> System.out.printf(
                        "MoveUnderTransactionsIT: client error %s%nlatest InnoDB deadlock of each server:%n%s",
                        e, cluster.latestDeadlocks()));
        JsonNode done;
        try {
            load.awaitMore(12, MoveProbe.PATIENCE.toSeconds());
            String id = cluster.probe.start(cluster.router.httpPort(), 12, 15, 0);
            done = cluster.probe.awaitEnd(cluster.router.httpPort(), id);
            load.awaitMore(12, MoveProbe.PATIENCE.toSeconds()); // transactions go on under the new rules
        } finally {
            load.close();
        }
        assertThat(done.get("state").asText()).as("the move: %s", done).isEqualTo("done");
        for (int b = 12; b <= 15; b++) {
            cluster.owner[b] = 30;
        }
        assertThat(load.errors).as("client errors").isEmpty();
        assertThat(load.wrongReads)
                .as("reads that missed the client's own last write")
                .isEmpty();
        OrdersContents contents = cluster.contents();
        assertThat(contents.misplaced())
                .as("rows away from the shard the rules name")
                .isEqualTo(List.of());
        assertThat(contents.duplicated()).as("rows on several shards").isEqualTo(List.of());
        assertThat(OrdersContents.first(contents.differences()))
                .as(
                        "differences from the reference (%d)",
                        contents.differences().size())
                .isEqualTo(List.of());
        System.out.printf(
                "MoveUnderTransactionsIT: buckets 12-15 moved under %d clients always in a transaction: rows copied"
                        + " %d, statements held %d ms, cleanup %d ms; %d transactions acknowledged, 0 errors; rows"
                        + " per hostgroup %s%n",
                CLIENTS,
                done.path("progress").path("rows_copied").asLong(),
                done.path("progress").path("hold_millis").asLong(),
                done.path("progress").path("cleanup_millis").asLong(),
                load.acknowledged.get(),
                contents.perHostgroup());
    }
}
