package io.shardgate.it.faults;

import static io.shardgate.it.faults.FaultCluster.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.it.server.RouterProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The router's JVM killed with SIGKILL under a write load and started again (fault matrix, "router
 * killed"): clients insert rows with unique ids on both shards and remember every id the router
 * acknowledged; they reconnect when the router is back; in the end every acknowledged row is on
 * its shard (count and checksum over id and payload), and no row exists that no client sent.
 */
class RouterKillIT {
    private static final int CLIENTS = 4;
    private static final int ACKS_PER_PHASE = 30;

    @TempDir
    Path dir;

    @Test
    @Timeout(180)
    void everyAcknowledgedWriteSurvivesARouterKilledAndRestarted() throws Exception {
        try (FaultCluster cluster = new FaultCluster(dir)) {
            cluster.createItems();
            int port = RouterProcess.freePort();
            try (RouterProcess router = new RouterProcess(dir, cluster.routerYaml(port, "", true), port)) {
                router.start();
                Writers writers = new Writers(cluster, port);
                try {
                    eventually(
                            "every client's writes acknowledged",
                            Duration.ofSeconds(60),
                            () -> writers.minAcknowledgedSince(0) >= ACKS_PER_PHASE);
                    router.kill();
                    long killed = writers.generation.incrementAndGet(); // acks from here on count as after
                    router.start();
                    eventually(
                            "every client reconnected and writes again",
                            Duration.ofSeconds(60),
                            () -> writers.minAcknowledgedSince(killed) >= ACKS_PER_PHASE);
                } catch (AssertionError e) {
                    String out = router.output();
                    throw new AssertionError(
                            e.getMessage() + "; client errors: " + writers.errors + "; router output:\n"
                                    + out.substring(Math.max(0, out.length() - 6000)),
                            e);
                } finally {
                    writers.close();
                }
                assertThat(writers.broken).isEmpty();
                for (int t = 0; t < CLIENTS; t++) {
                    assertThat(writers.reconnects[t].get())
                            .as("client %d reconnected", t)
                            .isGreaterThanOrEqualTo(1);
                }

                Map<Long, String> expected = new HashMap<>(writers.acknowledged);
                Map<Long, String> onShards = new HashMap<>();
                for (int hostgroup : new int[] {10, 20}) {
                    try (Connection c = cluster.direct(hostgroup);
                            Statement s = c.createStatement();
                            ResultSet rs = s.executeQuery("SELECT id, note FROM items")) {
                        while (rs.next()) {
                            long id = rs.getLong(1);
                            assertThat(FaultCluster.hostgroupOf(id))
                                    .as("row %d on its shard", id)
                                    .isEqualTo(hostgroup);
                            onShards.put(id, rs.getString(2));
                        }
                    }
                }
                Map<Long, String> acknowledgedOnShards = new HashMap<>(onShards);
                acknowledgedOnShards.keySet().retainAll(expected.keySet());
                assertThat(acknowledgedOnShards.size())
                        .as("acknowledged rows present")
                        .isEqualTo(expected.size());
                assertThat(checksum(acknowledgedOnShards))
                        .as("checksum of id and payload")
                        .isEqualTo(checksum(expected));
                Set<Long> unacknowledged = new java.util.HashSet<>(onShards.keySet());
                unacknowledged.removeAll(expected.keySet());
                assertThat(writers.uncertain)
                        .as("rows present without an acknowledgement were sent when the router died")
                        .containsAll(unacknowledged);
                assertThat(router.output()).doesNotContain("LEAK:");
                System.out.printf(
                        "RouterKillIT: %d writes acknowledged, all present (checksum %d); %d unacknowledged (%d of"
                                + " them committed); reconnects per client %s%n",
                        expected.size(),
                        checksum(expected),
                        writers.uncertain.size(),
                        unacknowledged.size(),
                        java.util.Arrays.toString(writers.reconnects));
            }
        }
    }

    /** Sum of CRC32("id:note") over the rows: equal sets of rows give equal sums. */
    private static long checksum(Map<Long, String> rows) {
        long sum = 0;
        for (Map.Entry<Long, String> row : rows.entrySet()) {
            CRC32 crc = new CRC32();
            crc.update((row.getKey() + ":" + row.getValue()).getBytes(StandardCharsets.UTF_8));
            sum += crc.getValue();
        }
        return sum;
    }

    /**
     * Client threads inserting rows with ids of their own, alternating the shards, each on one
     * router connection that it replaces (retrying until the router accepts again) when it breaks.
     */
    private static final class Writers {
        final Map<Long, String> acknowledged = new ConcurrentHashMap<>();
        /** Ids whose INSERT failed after it was sent: committed or not, nobody can tell. */
        final Set<Long> uncertain = ConcurrentHashMap.newKeySet();

        final AtomicLong[] reconnects = new AtomicLong[CLIENTS];
        final AtomicLong generation = new AtomicLong();
        /** Per client and generation: acknowledged writes. */
        final Map<Long, AtomicLong>[] acksByGeneration;

        final ConcurrentLinkedQueue<String> broken = new ConcurrentLinkedQueue<>();
        /** The first errors the clients saw, for the failure message. */
        final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();

        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();

        @SuppressWarnings("unchecked")
        Writers(FaultCluster cluster, int port) {
            acksByGeneration = new Map[CLIENTS];
            for (int i = 0; i < CLIENTS; i++) {
                reconnects[i] = new AtomicLong();
                acksByGeneration[i] = new ConcurrentHashMap<>();
                int client = i;
                Driver driver = i % 2 == 0 ? Driver.MARIADB : Driver.MYSQL;
                Thread t = new Thread(() -> run(cluster, port, client, driver), "router-kill-writer-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }

        long minAcknowledgedSince(long generation) {
            long min = Long.MAX_VALUE;
            for (int i = 0; i < CLIENTS; i++) {
                long n = 0;
                for (Map.Entry<Long, AtomicLong> e : acksByGeneration[i].entrySet()) {
                    if (e.getKey() >= generation) {
                        n += e.getValue().get();
                    }
                }
                min = Math.min(min, n);
            }
            return min;
        }

        private void run(FaultCluster cluster, int port, int client, Driver driver) {
            long n = 0;
            Connection c = null;
            try {
                while (running.get()) {
                    if (c == null) {
                        c = RouterClients.connect(cluster, port, driver, running, errors);
                        if (c == null) {
                            return; // stopped while the router was away
                        }
                    }
                    n++;
                    long id = (n % 2 == 0 ? 0 : FaultCluster.SPLIT) + client * 100_000L + n;
                    String note = "client " + client + " row " + n;
                    try (PreparedStatement insert =
                            c.prepareStatement("INSERT INTO items (id, qty, note) VALUES (?, ?, ?)")) {
                        insert.setLong(1, id);
                        insert.setLong(2, n);
                        insert.setString(3, note);
                        insert.executeUpdate();
                        acknowledged.put(id, note);
                        acksByGeneration[client]
                                .computeIfAbsent(generation.get(), g -> new AtomicLong())
                                .incrementAndGet();
                    } catch (SQLException e) {
                        if (errors.size() < 20) {
                            errors.add("client " + client + " insert: " + e);
                        }
                        if (RouterClients.alive(c)) {
                            broken.add("client " + client + ": refused while the router was up: " + e);
                            return;
                        }
                        uncertain.add(id);
                        RouterClients.closeQuietly(c);
                        c = null;
                        reconnects[client].incrementAndGet();
                    }
                }
            } catch (RuntimeException e) {
                broken.add("client " + client + ": " + e);
            } finally {
                RouterClients.closeQuietly(c);
            }
        }

        void close() throws InterruptedException {
            running.set(false);
            for (Thread t : threads) {
                t.join(60_000);
            }
        }
    }
}
