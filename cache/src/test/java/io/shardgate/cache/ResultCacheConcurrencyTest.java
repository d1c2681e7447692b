package io.shardgate.cache;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Scheduler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.sharding.digest.Digest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * Readers hammer a few keys while a writer changes the "backend" and invalidates, purges race
 * fills, a ticker expires entries and a small byte bound evicts them. A simulated backend holds one
 * version per table; a write bumps it, then invalidates, then counts as acknowledged. Every answer
 * a reader gets must carry its key and a version no older than the last write acknowledged before
 * its lookup began; at the end every buffer is released.
 */
class ResultCacheConcurrencyTest {
    static final int TABLES = 4;
    static final int KEYS = 24;
    static final int READERS = 6;
    static final int OPS_PER_READER = 15_000;

    final FakeTicker ticker = new FakeTicker();
    final TrackingAllocator alloc = new TrackingAllocator();
    final ResultCache cache = new ResultCache(
            new CacheConfig(true, 48 << 10, 4 << 10, Duration.ofSeconds(5)),
            new SimpleMeterRegistry(),
            ticker,
            alloc,
            Scheduler.disabledScheduler());
    final AtomicLongArray backend = new AtomicLongArray(TABLES);
    final AtomicLongArray acknowledged = new AtomicLongArray(TABLES);
    final List<QualifiedTable> tables = new ArrayList<>();
    final List<CacheKey> keys = new ArrayList<>();
    final List<CachePolicy> policies = new ArrayList<>();
    final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    final AtomicLong answers = new AtomicLong();

    @Test
    void neverServesAResultOlderThanAnAcknowledgedWriteAndLeaksNothing() throws Exception {
        for (int t = 0; t < TABLES; t++) {
            tables.add(QualifiedTable.of("shop", "t" + t));
        }
        for (int k = 0; k < KEYS; k++) {
            CachePolicy policy = new CachePolicy(k % 3, Duration.ofMillis(50), false);
            policies.add(policy);
            keys.add(CacheKey.forQuery(
                    "shop", Digest.of("SELECT c FROM t" + (k % TABLES) + " WHERE id = " + k), "app", policy, "v"));
        }
        ExecutorService pool = Executors.newFixedThreadPool(READERS + 2);
        CountDownLatch readersDone = new CountDownLatch(READERS);
        List<Future<?>> futures = new ArrayList<>();
        for (int r = 0; r < READERS; r++) {
            futures.add(pool.submit(() -> {
                try {
                    for (int i = 0; i < OPS_PER_READER; i++) {
                        read(ThreadLocalRandom.current().nextInt(KEYS));
                    }
                } finally {
                    readersDone.countDown();
                }
                return null;
            }));
        }
        futures.add(pool.submit(() -> {
            while (readersDone.getCount() > 0) {
                write();
            }
            return null;
        }));
        futures.add(pool.submit(() -> {
            while (readersDone.getCount() > 0) {
                ticker.advance(Duration.ofMillis(1));
                Thread.onSpinWait();
            }
            return null;
        }));
        for (Future<?> f : futures) {
            f.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();

        assertThat(violations).isEmpty();
        assertThat(answers.get()).isEqualTo((long) READERS * OPS_PER_READER);
        CacheStats stats = cache.stats();
        assertThat(stats.hits()).as("the cache answered some lookups").isPositive();
        assertThat(stats.waits()).as("single flight coalesced some").isPositive();
        assertThat(stats.invalidations()).isPositive();
        assertThat(stats.evictions()).isPositive();
        assertThat(cache.fillsInProgress()).isZero();
        cache.close();
        assertThat(cache.indexedTables()).isZero();
        assertThat(alloc.live()).as("buffers still referenced").isZero();
    }

    private void read(int k) throws Exception {
        int t = k % TABLES;
        long floor = acknowledged.get(t); // writes acknowledged before the lookup began
        Lookup lookup = cache.lookup(keys.get(k), policies.get(k), Set.of(tables.get(t)), mode());
        if (lookup instanceof Lookup.Wait w) {
            lookup = w.result().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
        if (lookup instanceof Lookup.Hit hit) {
            check(k, floor, hit.response());
        } else if (lookup instanceof Lookup.Fill fill) {
            ByteBuf response = response(k, backend.get(t));
            try {
                int how = ThreadLocalRandom.current().nextInt(10);
                if (how == 0) {
                    cache.abandon(fill.ticket()); // a backend error
                } else if (how < 5) {
                    cache.complete(fill.ticket(), response);
                } else {
                    collect(fill.ticket(), response);
                }
                answers.incrementAndGet();
            } finally {
                response.release();
            }
        } else if (lookup instanceof Lookup.Bypass) {
            answers.incrementAndGet(); // would run on the backend, which is always current
        } else {
            throw new AssertionError("a wait completes with a hit or a bypass: " + lookup);
        }
    }

    /** Relays the response as frames of up to 700 bytes through a collector. */
    private void collect(FillTicket ticket, ByteBuf response) {
        ResponseCollector collector = cache.collector(ticket);
        for (int at = 0; at < response.readableBytes(); at += 700) {
            if (!collector.add(response.slice(at, Math.min(700, response.readableBytes() - at)))) {
                return; // past max_entry_bytes: the collector abandoned the fill
            }
        }
        collector.finish();
    }

    private void write() {
        int t = ThreadLocalRandom.current().nextInt(TABLES);
        int op = ThreadLocalRandom.current().nextInt(100);
        if (op < 90) {
            long v = backend.incrementAndGet(t); // the backend committed
            cache.invalidateTable(tables.get(t)); // the router invalidates before the OK
            acknowledged.accumulateAndGet(t, v, Math::max); // the client has its OK
        } else if (op < 95) {
            cache.invalidateRule(t % 3);
        } else if (op < 98) {
            cache.invalidateSchema("shop");
        } else {
            cache.invalidateAll();
        }
    }

    private static CacheMode mode() {
        return ThreadLocalRandom.current().nextInt(50) == 0 ? CacheMode.REFRESH : CacheMode.USE;
    }

    private void check(int k, long floor, ByteBuf response) {
        try {
            String s = response.toString(UTF_8);
            String[] parts = s.split(";", 3);
            int key = Integer.parseInt(parts[0]);
            long version = Long.parseLong(parts[1]);
            if (key != k || parts[2].length() != padding(k, version) || response.readableBytes() != s.length()) {
                violations.add("torn or mixed answer for key " + k + ": " + s);
            } else if (version < floor) {
                violations.add(
                        "key " + k + " answered version " + version + " after write " + floor + " was acknowledged");
            }
            answers.incrementAndGet();
        } finally {
            response.release();
        }
    }

    /** "key;version;padding": sizes vary so the byte bound evicts, and a torn copy shows. */
    private static ByteBuf response(int k, long version) {
        return Unpooled.copiedBuffer(k + ";" + version + ";" + "x".repeat(padding(k, version)), UTF_8);
    }

    private static int padding(int k, long version) {
        return (int) ((k * 131 + version * 17) % 3000);
    }
}
