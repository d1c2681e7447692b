package io.shardgate.it.faults;

import static io.shardgate.it.faults.FaultCluster.eventually;
import static io.shardgate.it.faults.TransferShards.gtrids;
import static io.shardgate.it.faults.TransferShards.ledger;
import static io.shardgate.it.faults.TransferShards.prepared;
import static io.shardgate.it.faults.TransferShards.sum;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.it.server.RouterProcess;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two-phase commit under router crashes (fault matrix, "router killed mid-commit"): clients move
 * amounts between accounts on different shards of a {@code two_phase} schema, each transfer also
 * appending the client's next sequence number to both shards, while the router's JVM is SIGKILLed
 * at random moments of the commit protocol and started again. After each kill the test records
 * what the shards hold prepared and the decision row on the transaction's metadata manager (a
 * prepared branch without a row: killed after the PREPARE, before the manager's commit; with a
 * commit row: after the decision, before the XA COMMIT). In the end: the sum of the balances is
 * what it was, every sequence row is on both shards or on neither, every acknowledged transfer is
 * there, and {@code XA RECOVER} is empty on every shard.
 *
 * <p>{@code -Dtwophase.cycles=N} sets the number of kill cycles (3 by default, the verify run);
 * the long run is documented in docs/transactions.md.
 */
class TwoPhaseRouterKillIT {
    private static final int CLIENTS = 4;
    private static final int ACCOUNTS = 5;
    private static final int BALANCE = 1000;
    private static final long LEDGER = 100_000;
    private static final int CYCLES = Integer.getInteger("twophase.cycles", 3);

    @TempDir
    Path dir;

    @Test
    @Timeout(3600)
    void transfersStayAtomicAcrossRouterKillsAtAnyStepOfTheCommit() throws Exception {
        try (FaultCluster cluster = new FaultCluster(dir)) {
            cluster.createItems();
            for (int i = 1; i <= ACCOUNTS; i++) {
                cluster.onShard(10, "INSERT INTO items VALUES (" + i + ", " + BALANCE + ", 'account')");
                cluster.onShard(
                        20, "INSERT INTO items VALUES (" + (FaultCluster.SPLIT + i) + ", " + BALANCE + ", 'account')");
            }
            int port = RouterProcess.freePort();
            String yaml = cluster.routerYaml(
                    port,
                    "node_id: 5",
                    true,
                    "    transaction_mode: two_phase\nzookeeper: {session_timeout_millis: 3000}\n");
            Map<String, Integer> phases = new java.util.TreeMap<>();
            try (RouterProcess router = new RouterProcess(dir, yaml, port)) {
                router.start();
                Transfers transfers = new Transfers(cluster, port);
                Random random = new Random(19);
                try {
                    for (int cycle = 0; cycle < CYCLES; cycle++) {
                        long before = transfers.acknowledged.size();
                        eventually(
                                "transfers acknowledged in cycle " + cycle,
                                Duration.ofSeconds(120),
                                () -> !transfers.broken.isEmpty()
                                        || transfers.acknowledged.size() >= before + 3 + random.nextInt(5));
                        assertThat(transfers.broken)
                                .as("clients refused while the router was up")
                                .isEmpty();
                        Thread.sleep(random.nextInt(40)); // lands anywhere in a commit
                        router.kill();
                        phases.merge(phase(cluster), 1, Integer::sum);
                        long restart = System.nanoTime();
                        router.start();
                        if ((cycle + 1) % 25 == 0) { // a long run's progress in the build's log
                            System.out.printf(
                                    "TwoPhaseRouterKillIT: %d kill cycles done; %d transfers acknowledged; last"
                                            + " restart %d ms%n",
                                    cycle + 1,
                                    transfers.acknowledged.size(),
                                    (System.nanoTime() - restart) / 1_000_000);
                        }
                    }
                    long last = transfers.acknowledged.size();
                    eventually(
                            "transfers go on after the last restart",
                            Duration.ofSeconds(120),
                            () -> transfers.acknowledged.size() >= last + CLIENTS);
                } catch (AssertionError e) {
                    String out = router.output();
                    throw new AssertionError(
                            e.getMessage() + "; client errors: " + transfers.errors + "; router output:\n"
                                    + out.substring(Math.max(0, out.length() - 8000)),
                            e);
                } finally {
                    transfers.close();
                }
                assertThat(transfers.broken).isEmpty();
                eventually(
                        "the resolver leaves nothing prepared",
                        Duration.ofSeconds(120),
                        () -> prepared(cluster, 10) + prepared(cluster, 20) == 0);

                assertThat(sum(cluster, 10) + sum(cluster, 20))
                        .as("sum of the balances")
                        .isEqualTo(2L * ACCOUNTS * BALANCE);
                Set<String> ledger10 = ledger(cluster, 10);
                Set<String> ledger20 = ledger(cluster, 20);
                assertThat(ledger10)
                        .as("sequence rows on both shards or neither")
                        .isEqualTo(ledger20);
                assertThat(ledger10).as("every acknowledged transfer").containsAll(transfers.acknowledged);
                Set<String> unacknowledged = new HashSet<>(ledger10);
                unacknowledged.removeAll(transfers.acknowledged);
                assertThat(transfers.uncertain)
                        .as("transfers present without an acknowledgement were in flight at a kill")
                        .containsAll(unacknowledged);
                assertThat(router.output()).doesNotContain("LEAK:");
                System.out.printf(
                        "TwoPhaseRouterKillIT: %d kill cycles; prepared branches found right after each kill: %s;"
                                + " %d transfers acknowledged, all present; %d in flight at a kill (%d of them"
                                + " committed); %d rolled back on a retryable error; balances sum %d%n",
                        CYCLES,
                        phases,
                        transfers.acknowledged.size(),
                        transfers.uncertain.size(),
                        unacknowledged.size(),
                        transfers.retried.get(),
                        sum(cluster, 10) + sum(cluster, 20));
            }
        }
    }

    /** What the shards hold prepared right after a kill: which step of the commit it interrupted. */
    /**
     * Where the kill landed, by what the shards hold: no branch prepared (before any PREPARE, or
     * after every XA COMMIT), a branch prepared and no decision row on its manager (between the
     * PREPAREs and the manager's commit), or a branch prepared and the manager committed (between
     * the decision and the XA COMMITs).
     */
    private static String phase(FaultCluster cluster) throws SQLException {
        Set<String> prepared = new HashSet<>(gtrids(cluster, 10));
        prepared.addAll(gtrids(cluster, 20));
        if (prepared.isEmpty()) {
            return "none prepared";
        }
        Set<String> decisions = new java.util.TreeSet<>();
        for (String gtrid : prepared) {
            decisions.add(TransferShards.decision(cluster, gtrid));
        }
        return "prepared, decision row " + String.join("/", decisions);
    }

    /**
     * Client threads, each on one router connection it replaces when the router dies: a transfer
     * from an account on shard 10 to one on shard 20 (or back) plus the client's next sequence row
     * on both shards, in one transaction.
     */
    private static final class Transfers {
        /** "client:n" of every transfer whose COMMIT was acknowledged. */
        final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        /** Transfers whose COMMIT was sent but not answered: committed or not, nobody can tell. */
        final Set<String> uncertain = ConcurrentHashMap.newKeySet();

        final ConcurrentLinkedQueue<String> broken = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();
        /**
         * Errors after which the client rolls back and goes on: deadlock, lock wait timeout, a
         * failed first phase (1402), and a shard the router's monitor shunned or whose pool was
         * exhausted (9002, 9001) on an overloaded machine. Anything else while the router is up
         * fails the test.
         */
        private static final Set<Integer> RETRYABLE = Set.of(1213, 1205, 1402, 9001, 9002);

        final AtomicLong retried = new AtomicLong();

        Transfers(FaultCluster cluster, int port) {
            for (int i = 0; i < CLIENTS; i++) {
                int client = i;
                Driver driver = i % 2 == 0 ? Driver.MARIADB : Driver.MYSQL;
                Thread t = new Thread(() -> run(cluster, port, client, driver), "2pc-transfer-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }

        private void run(FaultCluster cluster, int port, int client, Driver driver) {
            Random random = new Random(client);
            long n = 0;
            Connection c = null;
            try {
                while (running.get()) {
                    if (c == null) {
                        c = RouterClients.connect(cluster, port, driver, running, errors);
                        if (c == null) {
                            return;
                        }
                    }
                    n++;
                    String key = client + ":" + n;
                    long from = 1 + random.nextInt(ACCOUNTS);
                    long to = FaultCluster.SPLIT + 1 + random.nextInt(ACCOUNTS);
                    if (random.nextBoolean()) {
                        long swap = from;
                        from = to;
                        to = swap;
                    }
                    int amount = 1 + random.nextInt(10);
                    long seq = LEDGER + client * 10_000L + n;
                    boolean committing = false;
                    try (Statement s = c.createStatement()) {
                        s.execute("BEGIN");
                        s.executeUpdate("UPDATE items SET qty = qty - " + amount + " WHERE id = " + from);
                        s.executeUpdate("UPDATE items SET qty = qty + " + amount + " WHERE id = " + to);
                        s.executeUpdate("INSERT INTO items (id, qty, note) VALUES (" + seq + ", 0, 'seq " + key
                                + "'), (" + (FaultCluster.SPLIT + seq) + ", 0, 'seq " + key + "')");
                        committing = true;
                        s.execute("COMMIT");
                        acknowledged.add(key);
                    } catch (SQLException e) {
                        if (errors.size() < 20) {
                            errors.add("client " + client + ": " + e);
                        }
                        if (RouterClients.alive(c)) {
                            if (RETRYABLE.contains(e.getErrorCode())) {
                                // not acknowledged, rolled back below: the next transfer goes on
                                retried.incrementAndGet();
                                rollbackQuietly(c);
                                continue;
                            }
                            broken.add("client " + client + ": refused while the router was up: " + e);
                            return;
                        }
                        if (committing) {
                            uncertain.add(key);
                        }
                        RouterClients.closeQuietly(c);
                        c = null;
                    }
                }
            } catch (RuntimeException e) {
                broken.add("client " + client + ": " + e);
            } finally {
                RouterClients.closeQuietly(c);
            }
        }

        private static void rollbackQuietly(Connection c) {
            try (Statement s = c.createStatement()) {
                s.execute("ROLLBACK");
            } catch (SQLException e) {
                // the transaction is over anyway
            }
        }

        void close() throws InterruptedException {
            running.set(false);
            for (Thread t : threads) {
                t.join(120_000);
            }
        }
    }
}
