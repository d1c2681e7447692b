package io.shardgate.it.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.cache.CacheStats;
import io.shardgate.it.Driver;
import io.shardgate.it.proxy.Mode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * 64 client threads read 100 keys through the router (TTL 50 ms) while another thread updates
 * them, through the router and straight on the backend. Each key is a group of three rows that
 * every update changes in one statement, each row carrying the version twice ({@code v}, {@code
 * w}): a result that is not a state the backend had — rows of two versions, a torn row, a version
 * never written — fails. At the end every key read through the router converges to the backend's.
 */
final class ConcurrencyCheck {
    static final int KEYS = 100;
    static final int READERS = 64;
    static final int READS_PER_THREAD = 150;

    interface Connector {
        Connection open(Driver driver, Mode mode) throws SQLException;
    }

    private final Connector proxied;

    ConcurrencyCheck(Connector proxied) {
        this.proxied = proxied;
    }

    void run() throws Exception {
        AtomicIntegerArray written = new AtomicIntegerArray(KEYS); // updates started per key: an upper bound
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        AtomicBoolean readersDone = new AtomicBoolean();
        CacheStats before = ResultCacheIT.stats();
        ExecutorService pool = Executors.newFixedThreadPool(READERS + 1);
        try {
            CountDownLatch ready = new CountDownLatch(READERS + 1);
            Future<Integer> updater = pool.submit(() -> update(written, readersDone, ready));
            List<Future<?>> readers = new ArrayList<>();
            for (int t = 0; t < READERS; t++) {
                Driver driver = Driver.values()[t % 2];
                Mode mode = Mode.values()[(t / 2) % 2];
                readers.add(pool.submit(() -> {
                    read(driver, mode, written, problems, ready);
                    return null;
                }));
            }
            for (Future<?> reader : readers) {
                reader.get();
            }
            readersDone.set(true);
            assertThat(updater.get()).isPositive();
        } finally {
            readersDone.set(true);
            pool.shutdownNow();
        }
        assertThat(problems).isEmpty();
        CacheStats after = ResultCacheIT.stats();
        assertThat(after.hits() + after.waits() - before.hits() - before.waits())
                .as("reads answered by the cache")
                .isPositive();
        converges();
    }

    private int update(AtomicIntegerArray written, AtomicBoolean done, CountDownLatch ready) throws Exception {
        int n = 0;
        try (Connection router = proxied.open(Driver.MARIADB, Mode.TEXT);
                Connection backend = ResultCacheIT.direct(ResultCacheIT.shard10)) {
            ready.countDown();
            ready.await();
            while (!done.get()) {
                int key = ThreadLocalRandom.current().nextInt(KEYS);
                written.incrementAndGet(key);
                ResultCacheIT.execute(
                        n % 2 == 0 ? router : backend, "UPDATE versions SET v = v + 1, w = w + 1 WHERE grp = ?", key);
                n++;
            }
        }
        return n;
    }

    private void read(
            Driver driver,
            Mode mode,
            AtomicIntegerArray written,
            ConcurrentLinkedQueue<String> problems,
            CountDownLatch ready)
            throws Exception {
        try (Connection c = proxied.open(driver, mode);
                PreparedStatement ps = c.prepareStatement("SELECT id, v, w FROM versions WHERE grp = ? ORDER BY id")) {
            ready.countDown();
            ready.await();
            for (int i = 0; i < READS_PER_THREAD; i++) {
                int key = ThreadLocalRandom.current().nextInt(KEYS);
                ps.setInt(1, key);
                List<int[]> rows = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(new int[] {rs.getInt(1), rs.getInt(2), rs.getInt(3)});
                    }
                }
                String problem = check(key, rows, written.get(key));
                if (problem != null) {
                    problems.add(driver + " " + mode + ": " + problem);
                }
            }
        }
    }

    private static String check(int key, List<int[]> rows, int writtenBound) {
        if (rows.size() != 3) {
            return "key " + key + ": " + rows.size() + " rows";
        }
        int version = rows.get(0)[1];
        for (int r = 0; r < 3; r++) {
            int[] row = rows.get(r);
            if (row[0] != r || row[1] != version || row[2] != version) {
                return "key " + key + ": mixed or torn rows " + describe(rows);
            }
        }
        if (version > writtenBound) {
            return "key " + key + ": version " + version + " was never written (at most " + writtenBound + ")";
        }
        return null;
    }

    private static String describe(List<int[]> rows) {
        StringBuilder sb = new StringBuilder();
        for (int[] row : rows) {
            sb.append("(id ")
                    .append(row[0])
                    .append(" v ")
                    .append(row[1])
                    .append(" w ")
                    .append(row[2])
                    .append(')');
        }
        return sb.toString();
    }

    /** After the updates stop, every key read through the router reaches the backend's state. */
    private void converges() throws Exception {
        int[] expected = new int[KEYS];
        try (Connection backend = ResultCacheIT.direct(ResultCacheIT.shard10);
                ResultSet rs = backend.createStatement().executeQuery("SELECT grp, v FROM versions WHERE id = 0")) {
            while (rs.next()) {
                expected[rs.getInt(1)] = rs.getInt(2);
            }
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        try (Connection c = proxied.open(Driver.MARIADB, Mode.SERVER_PREPARED);
                PreparedStatement ps = c.prepareStatement("SELECT id, v, w FROM versions WHERE grp = ? ORDER BY id")) {
            for (int key = 0; key < KEYS; key++) {
                int seen;
                do {
                    ps.setInt(1, key);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        seen = rs.getInt(2);
                    }
                } while (seen != expected[key] && System.nanoTime() < deadline && pause());
                assertThat(seen).as("key %d through the router", key).isEqualTo(expected[key]);
            }
        }
    }

    private static boolean pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }
}
