package io.shardgate.it.faults;

import static io.shardgate.it.faults.FaultCluster.eventually;
import static io.shardgate.it.faults.TransferShards.gtrids;
import static io.shardgate.it.faults.TransferShards.ledger;
import static io.shardgate.it.faults.TransferShards.prepared;
import static io.shardgate.it.faults.TransferShards.sum;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
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
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two-phase commit under shard faults (fault matrix, "shard killed / stopped mid-commit"): clients
 * move amounts between accounts on the two shards of a {@code two_phase} schema, each transfer also
 * appending the client's next sequence row to both shards, while one shard's mariadbd is SIGKILLed
 * (then started again on its data directory) or SIGSTOPped (then SIGCONTed) at random moments of
 * the commit protocol: during the first phase or between PREPARE and COMMIT, as the prepared
 * branches on the other shard show right after the fault. The router stays up. In the end: the
 * sum of the balances is what it was, every sequence row is on both shards or on neither, every
 * acknowledged COMMIT is there, no transfer whose COMMIT failed with 1402 (rolled back) is,
 * {@code XA RECOVER} is empty on both shards once the resolver ran, and every failed COMMIT named
 * the xid and the shard (hostgroup or server address).
 *
 * <p>{@code -Dtwophase.shard.cycles=N} sets the faults of each kind (3 by default, the verify run).
 */
class TwoPhaseShardFaultIT {
    private static final int CLIENTS = 4;
    private static final int ACCOUNTS = 5;
    private static final int BALANCE = 1000;
    private static final long LEDGER = 100_000;
    private static final int CYCLES = Integer.getInteger("twophase.shard.cycles", 3);
    /** A SIGSTOPped shard answers nothing: the router gives its statements up after this. */
    private static final int QUERY_TIMEOUT_MILLIS = 3000;

    @TempDir
    Path dir;

    @Test
    @Timeout(1800)
    void transfersStayAtomicWhenAShardIsKilledOrStoppedMidCommit() throws Exception {
        try (FaultCluster cluster = new FaultCluster(dir)) {
            cluster.createItems();
            for (int i = 1; i <= ACCOUNTS; i++) {
                cluster.onShard(10, "INSERT INTO items VALUES (" + i + ", " + BALANCE + ", 'account')");
                cluster.onShard(
                        20, "INSERT INTO items VALUES (" + (FaultCluster.SPLIT + i) + ", " + BALANCE + ", 'account')");
            }
            Shardgate router = cluster.startRouter(
                    "node_id: 6, query_timeout_millis: " + QUERY_TIMEOUT_MILLIS,
                    true,
                    "    transaction_mode: two_phase\n");
            Map<String, Integer> phases = new TreeMap<>();
            Transfers transfers = new Transfers(cluster, router.mysqlPort());
            Random random = new Random(20);
            try {
                for (int cycle = 0; cycle < 2 * CYCLES; cycle++) {
                    boolean kill = cycle % 2 == 0;
                    int victim = (cycle / 2) % 2 == 0 ? 20 : 10;
                    int other = victim == 10 ? 20 : 10;
                    long before = transfers.acknowledged.size();
                    eventually(
                            "transfers acknowledged before fault " + cycle,
                            Duration.ofSeconds(120),
                            () -> !transfers.broken.isEmpty()
                                    || transfers.acknowledged.size() >= before + 3 + random.nextInt(5));
                    assertThat(transfers.broken).as("client threads that died").isEmpty();
                    // lands in a commit: right after a client sent its COMMIT, within a few ms
                    eventually(
                            "a COMMIT in flight",
                            Duration.ofSeconds(60),
                            () -> !transfers.broken.isEmpty() || transfers.committing.get() > 0);
                    Thread.sleep(random.nextInt(4));
                    long failedBefore = transfers.failedCommits.size() + transfers.failedStatements.get();
                    if (kill) {
                        cluster.kill(victim);
                    } else {
                        cluster.signal(victim, "STOP");
                    }
                    String what = (kill ? "SIGKILL" : "SIGSTOP") + " of hostgroup " + victim + ": ";
                    phases.merge(what + phase(cluster, other), 1, Integer::sum);
                    // the clients run into the fault (a lost connection, a query timeout, the shard shunned)
                    eventually(
                            "clients see the fault of hostgroup " + victim,
                            Duration.ofSeconds(60),
                            () -> transfers.failedCommits.size() + transfers.failedStatements.get() > failedBefore);
                    if (kill) {
                        cluster.restart(victim);
                    } else {
                        cluster.signal(victim, "CONT");
                    }
                    long after = transfers.acknowledged.size();
                    eventually(
                            "transfers go on after hostgroup " + victim + " is back",
                            Duration.ofSeconds(120),
                            () -> !transfers.broken.isEmpty() || transfers.acknowledged.size() >= after + CLIENTS);
                }
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; client errors: " + transfers.errors, e);
            } finally {
                transfers.close();
            }
            assertThat(transfers.broken).as("client threads that died").isEmpty();
            eventually(
                    "the resolver leaves nothing prepared",
                    Duration.ofSeconds(120),
                    () -> prepared(cluster, 10) + prepared(cluster, 20) == 0);

            assertThat(sum(cluster, 10) + sum(cluster, 20))
                    .as("sum of the balances")
                    .isEqualTo(2L * ACCOUNTS * BALANCE);
            Set<String> ledger10 = ledger(cluster, 10);
            Set<String> ledger20 = ledger(cluster, 20);
            assertThat(ledger10).as("sequence rows on both shards or neither").isEqualTo(ledger20);
            assertThat(ledger10).as("every acknowledged transfer").containsAll(transfers.acknowledged);
            assertThat(ledger10)
                    .as("no transfer whose COMMIT answered 1402 (rolled back)")
                    .noneMatch(transfers.rolledBack::contains);
            Set<String> unacknowledged = new HashSet<>(ledger10);
            unacknowledged.removeAll(transfers.acknowledged);
            assertThat(transfers.uncertain)
                    .as("transfers present without an acknowledgement had a COMMIT that lost its shard")
                    .containsAll(unacknowledged);
            transfers.commitErrors.forEach((key, message) -> {
                // what the error says became of the transaction is what the shards hold
                if (message.contains(") committed:")) {
                    assertThat(ledger10).as("said committed: %s", message).contains(key);
                } else if (message.contains("rolled back:")) {
                    assertThat(ledger10).as("said rolled back: %s", message).doesNotContain(key);
                }
            });
            for (String failure : transfers.failedCommits) {
                assertThat(failure)
                        .as("a failed COMMIT names the xid and the shard")
                        .containsPattern("sg\\.6\\.\\d+\\.\\d+")
                        .containsAnyOf(
                                "hostgroup 10",
                                "hostgroup 20",
                                "hostgroups [10, 20]",
                                cluster.shard(10).address(),
                                cluster.shard(20).address());
            }
            System.out.printf(
                    "TwoPhaseShardFaultIT: %d faults of each kind; prepared branches on the other shard right after"
                            + " each fault: %s; %d transfers acknowledged, all present; %d COMMITs failed (%d with"
                            + " 1402, none present; %d uncertain, %d of them committed); %d statements failed"
                            + " before COMMIT; balances sum %d; COMMIT errors: %s%n",
                    CYCLES,
                    phases,
                    transfers.acknowledged.size(),
                    transfers.failedCommits.size(),
                    transfers.rolledBack.size(),
                    transfers.uncertain.size(),
                    unacknowledged.size(),
                    transfers.failedStatements.get(),
                    sum(cluster, 10) + sum(cluster, 20),
                    transfers.failedCommits.stream().limit(6).toList());
        }
    }

    /** What the live shard holds prepared right after a fault: which step of a commit it interrupted. */
    private static String phase(FaultCluster cluster, int live) throws SQLException {
        return gtrids(cluster, live).isEmpty() ? "none prepared" : "prepared there";
    }

    /**
     * Client threads, each on one router connection it replaces when the router closes it: a
     * transfer between an account on shard 10 and one on shard 20 plus the client's next sequence
     * row on both shards, in one transaction. Every error is expected while a shard is down; what
     * each COMMIT answered is kept for the checks.
     */
    private static final class Transfers {
        /** "client:n" of every transfer whose COMMIT was acknowledged. */
        final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        /** Transfers whose COMMIT answered 1402: rolled back on every shard. */
        final Set<String> rolledBack = ConcurrentHashMap.newKeySet();
        /** Transfers whose COMMIT failed otherwise (the connection to a shard lost): either outcome. */
        final Set<String> uncertain = ConcurrentHashMap.newKeySet();
        /** "code: message" of every failed COMMIT. */
        final ConcurrentLinkedQueue<String> failedCommits = new ConcurrentLinkedQueue<>();
        /** The transfer of each failed COMMIT, to its error message. */
        final Map<String, String> commitErrors = new ConcurrentHashMap<>();

        final java.util.concurrent.atomic.AtomicLong failedStatements = new java.util.concurrent.atomic.AtomicLong();
        /** Clients between sending COMMIT and its answer. */
        final java.util.concurrent.atomic.AtomicInteger committing = new java.util.concurrent.atomic.AtomicInteger();

        final ConcurrentLinkedQueue<String> broken = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();

        Transfers(FaultCluster cluster, int port) {
            for (int i = 0; i < CLIENTS; i++) {
                int client = i;
                Driver driver = i % 2 == 0 ? Driver.MARIADB : Driver.MYSQL;
                Thread t = new Thread(() -> run(cluster, port, client, driver), "2pc-shard-transfer-" + i);
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
                        this.committing.incrementAndGet();
                        try {
                            s.execute("COMMIT");
                        } finally {
                            this.committing.decrementAndGet();
                        }
                        acknowledged.add(key);
                    } catch (SQLException e) {
                        if (errors.size() < 20) {
                            errors.add("client " + client + ": " + e);
                        }
                        if (committing) {
                            failedCommits.add(e.getErrorCode() + ": " + e.getMessage());
                            commitErrors.put(key, e.getMessage());
                            (e.getErrorCode() == 1402 ? rolledBack : uncertain).add(key);
                        } else {
                            failedStatements.incrementAndGet();
                        }
                        if (RouterClients.alive(c)) {
                            rollbackQuietly(c);
                        } else {
                            RouterClients.closeQuietly(c);
                            c = null;
                        }
                        pause();
                    }
                }
            } catch (RuntimeException e) {
                broken.add("client " + client + ": " + e);
            } finally {
                RouterClients.closeQuietly(c);
            }
        }

        /** While a shard is down every transfer fails at once: not a busy loop. */
        private static void pause() {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
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
