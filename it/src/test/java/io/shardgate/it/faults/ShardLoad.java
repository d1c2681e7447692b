package io.shardgate.it.faults;

import io.shardgate.it.Driver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Client threads, each on its own router connection, that alternate between the two shards: an
 * {@code UPDATE items SET qty = qty + 1} then a {@code SELECT qty} of the thread's own row on
 * hostgroup 10, then the same on hostgroup 20 (autocommit). Every outcome is kept: successes per
 * hostgroup, acknowledged increments per row, and each failure with its hostgroup, MySQL error
 * code, message and how long the statement took. A connection that fails a ping after an error is
 * replaced, as an application's pool would.
 */
final class ShardLoad implements AutoCloseable {
    /** One failed statement. */
    record Failure(int thread, int hostgroup, int code, String message, long millis, long atNanos) {}

    private final FaultCluster cluster;
    private final int port;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong ok10 = new AtomicLong();
    private final AtomicLong ok20 = new AtomicLong();
    /** Per thread: when its last statement on hostgroup 20 succeeded (System.nanoTime), 0 if never. */
    private final AtomicReferenceArray<Long> lastOk20;
    /** Per thread and hostgroup: increments acknowledged to the client. */
    private final AtomicLong[][] acknowledged;
    /** Per thread and hostgroup: increments whose UPDATE failed after it may have been sent. */
    private final AtomicLong[][] uncertain;

    private final AtomicLong reconnects = new AtomicLong();
    private final ConcurrentLinkedQueue<Failure> failures = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> broken = new ConcurrentLinkedQueue<>();

    ShardLoad(FaultCluster cluster, int port, int clients) {
        this.cluster = cluster;
        this.port = port;
        this.lastOk20 = new AtomicReferenceArray<>(clients);
        this.acknowledged = new AtomicLong[clients][2];
        this.uncertain = new AtomicLong[clients][2];
        for (int i = 0; i < clients; i++) {
            lastOk20.set(i, 0L);
            for (int h = 0; h < 2; h++) {
                acknowledged[i][h] = new AtomicLong();
                uncertain[i][h] = new AtomicLong();
            }
            int thread = i;
            Driver driver = i % 2 == 0 ? Driver.MARIADB : Driver.MYSQL;
            Thread t = new Thread(() -> run(thread, driver), "shard-load-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
    }

    /** The row of {@code thread} on {@code hostgroup}. */
    static long row(int thread, int hostgroup) {
        return (hostgroup == 10 ? 0 : FaultCluster.SPLIT) + 1 + thread;
    }

    ShardLoad start() {
        threads.forEach(Thread::start);
        return this;
    }

    private void run(int thread, Driver driver) {
        Connection c = null;
        try {
            while (running.get()) {
                if (c == null) {
                    c = cluster.proxied(port, driver, Map.of());
                }
                for (int hostgroup : new int[] {10, 20}) {
                    if (!statement(c, thread, hostgroup) && !alive(c)) {
                        c.close();
                        c = null;
                        reconnects.incrementAndGet();
                        break;
                    }
                }
            }
        } catch (SQLException | RuntimeException e) {
            broken.add("thread " + thread + ": " + e);
        } finally {
            if (c != null) {
                try {
                    c.close();
                } catch (SQLException e) {
                    // closing anyway
                }
            }
        }
    }

    /** Runs the update and the read of one row; false when one failed (recorded). */
    private boolean statement(Connection c, int thread, int hostgroup) {
        int h = hostgroup == 10 ? 0 : 1;
        long start = System.nanoTime();
        boolean sent = false;
        try (PreparedStatement update = c.prepareStatement("UPDATE items SET qty = qty + 1 WHERE id = ?");
                PreparedStatement read = c.prepareStatement("SELECT qty FROM items WHERE id = ?")) {
            update.setLong(1, row(thread, hostgroup));
            sent = true;
            if (update.executeUpdate() != 1) {
                throw new IllegalStateException("row " + row(thread, hostgroup) + " missing");
            }
            sent = false;
            acknowledged[thread][h].incrementAndGet();
            read.setLong(1, row(thread, hostgroup));
            try (ResultSet rs = read.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("row " + row(thread, hostgroup) + " missing");
                }
            }
            (hostgroup == 10 ? ok10 : ok20).incrementAndGet();
            if (hostgroup == 20) {
                lastOk20.set(thread, System.nanoTime());
            }
            return true;
        } catch (SQLException e) {
            if (sent) {
                uncertain[thread][h].incrementAndGet();
            }
            long now = System.nanoTime();
            failures.add(new Failure(
                    thread,
                    hostgroup,
                    e.getErrorCode(),
                    String.valueOf(e.getMessage()),
                    (now - start) / 1_000_000,
                    now));
            return false;
        }
    }

    private static boolean alive(Connection c) {
        try {
            return c.isValid(5);
        } catch (SQLException e) {
            return false;
        }
    }

    long ok(int hostgroup) {
        return (hostgroup == 10 ? ok10 : ok20).get();
    }

    /** True when every thread's last hostgroup-20 statement after {@code sinceNanos} succeeded. */
    boolean allSucceededOn20Since(long sinceNanos) {
        for (int i = 0; i < lastOk20.length(); i++) {
            if (lastOk20.get(i) < sinceNanos) {
                return false;
            }
        }
        return true;
    }

    List<Failure> failures() {
        return List.copyOf(failures);
    }

    /** Threads that died of something other than a failed statement (a bug of the test or a hang). */
    List<String> broken() {
        return List.copyOf(broken);
    }

    long reconnects() {
        return reconnects.get();
    }

    long acknowledged(int thread, int hostgroup) {
        return acknowledged[thread][hostgroup == 10 ? 0 : 1].get();
    }

    long uncertain(int thread, int hostgroup) {
        return uncertain[thread][hostgroup == 10 ? 0 : 1].get();
    }

    int clients() {
        return threads.size();
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(120_000);
        }
    }
}
