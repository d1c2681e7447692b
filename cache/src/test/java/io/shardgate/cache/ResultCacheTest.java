package io.shardgate.cache;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Scheduler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.sharding.digest.Digest;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ResultCacheTest {
    static final CachePolicy RULE_3 = new CachePolicy(3, Duration.ofMillis(100), false);
    static final CachePolicy RULE_7 = new CachePolicy(7, Duration.ofSeconds(1), false);
    static final QualifiedTable ORDERS = QualifiedTable.of("shop", "orders");
    static final QualifiedTable USERS = QualifiedTable.of("shop", "users");

    final FakeTicker ticker = new FakeTicker();
    final TrackingAllocator alloc = new TrackingAllocator();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ResultCache cache = cache(new CacheConfig(true, 1 << 20, 64 << 10, Duration.ofSeconds(5)));

    ResultCache cache(CacheConfig config) {
        return new ResultCache(config, registry, ticker, alloc, Scheduler.disabledScheduler());
    }

    @AfterEach
    void releasesEverything() {
        cache.close();
        assertThat(cache.stats().entries()).isZero();
        assertThat(cache.stats().bytes()).isZero();
        assertThat(cache.indexedTables()).isZero();
        assertThat(alloc.live()).as("buffers still referenced").isZero();
    }

    @Test
    void storesAFilledResultAndAnswersTheNextLookupFromIt() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        Lookup.Fill fill = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        assertThat(cache.complete(fill.ticket(), response("row one"))).isTrue();

        ByteBuf hit = hit(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        assertThat(hit.toString(UTF_8)).isEqualTo("row one");
        assertThat(hit.isReadOnly()).isTrue();
        hit.release();

        assertThat(cache.stats()).isEqualTo(new CacheStats(1, 0, 1, 1, 0, 0, 0, 1, 7));
        assertThat(cache.statsByRule()).containsOnlyKeys(3);
        assertThat(cache.fillsInProgress()).isZero();
    }

    @Test
    void aHitIsIndependentOfTheStoredBuffer() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        cache.complete(
                fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE)).ticket(), response("abc"));
        ByteBuf first = hit(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        first.skipBytes(3); // a writer moves its own indices only
        first.release();
        ByteBuf second = hit(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        assertThat(second.toString(UTF_8)).isEqualTo("abc");
        second.release();
    }

    @Test
    void concurrentMissesOfOneKeyRunOneFillAndTheOthersGetItsResult() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        Lookup.Fill fill = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        CompletionStage<Lookup> w1 = waiting(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        CompletionStage<Lookup> w2 = waiting(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        assertThat(w1.toCompletableFuture()).isNotDone();

        cache.complete(fill.ticket(), response("shared"));
        for (CompletionStage<Lookup> w : java.util.List.of(w1, w2)) {
            ByteBuf b = hit(w.toCompletableFuture().join());
            assertThat(b.toString(UTF_8)).isEqualTo("shared");
            b.release();
        }
        assertThat(cache.stats().misses()).isEqualTo(1);
        assertThat(cache.stats().waits()).isEqualTo(2);
    }

    @Test
    void whenTheFillerAbandonsTheWaitersQueryTheBackendAndTheNextLookupFills() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        Lookup.Fill fill = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        CompletionStage<Lookup> w = waiting(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        cache.abandon(fill.ticket());
        cache.abandon(fill.ticket()); // idempotent: it may sit on every failure path

        assertThat(w.toCompletableFuture().join()).isInstanceOf(Lookup.Bypass.class);
        assertThatThrownBy(() -> cache.complete(fill.ticket(), response("late")))
                .isInstanceOf(IllegalStateException.class);
        Lookup.Fill next = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        cache.abandon(next.ticket());
        assertThat(cache.fillsInProgress()).isZero();
    }

    @Test
    void aWaiterThatCancelledItsStageLeaksNothing() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        Lookup.Fill fill = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        waiting(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE))
                .toCompletableFuture()
                .cancel(false);
        assertThat(cache.complete(fill.ticket(), response("x"))).isTrue();
    }

    @Test
    void aCollectorCopiesTheRelayedFramesAndCompletesTheFill() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        ResponseCollector collector = cache.collector(
                fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE)).ticket());
        CompletionStage<Lookup> w = waiting(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        ByteBuf frame = response("xx-column-count");
        frame.skipBytes(3); // only the readable bytes count
        assertThat(collector.add(frame)).isTrue();
        assertThat(frame.readerIndex()).isEqualTo(3);
        assertThat(collector.add(response("+rows".repeat(200)))).isTrue();
        assertThat(collector.finish()).isTrue();
        assertThat(collector.finish()).as("once").isFalse();
        collector.abandon(); // a no-op after finish

        String expected = "column-count" + "+rows".repeat(200);
        for (Lookup l : java.util.List.of(w.toCompletableFuture().join(), lookupAgain(key))) {
            ByteBuf b = hit(l);
            assertThat(b.toString(UTF_8)).isEqualTo(expected);
            assertThat(b.capacity()).as("at most a quarter of slack").isLessThanOrEqualTo(expected.length() * 5 / 4);
            b.release();
        }
    }

    @Test
    void aCollectorAbandonsTheFillOnceTheResponseOutgrowsTheEntryLimit() {
        cache = cache(new CacheConfig(true, 1 << 20, 100, Duration.ofSeconds(5)));
        CacheKey key = key("SELECT c FROM orders");
        ResponseCollector collector = cache.collector(
                fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE)).ticket());
        CompletionStage<Lookup> w = waiting(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        assertThat(collector.add(response("x".repeat(60)))).isTrue();
        assertThat(collector.add(response("x".repeat(41)))).isFalse();
        assertThat(w.toCompletableFuture().join())
                .as("waiters stop waiting at once")
                .isInstanceOf(Lookup.Bypass.class);
        assertThat(alloc.live()).isZero();
        assertThat(cache.stats().rejected())
                .as("counted like a response too large to store")
                .isEqualTo(1);
        assertThat(collector.add(response("x"))).isFalse();
        assertThat(collector.finish()).isFalse();
        cache.abandon(fill(lookupAgain(key)).ticket());
    }

    @Test
    void anAbandonedCollectorReleasesWhatItHeld() {
        CacheKey key = key("SELECT c FROM orders");
        ResponseCollector collector = cache.collector(
                fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE)).ticket());
        collector.add(response("partial"));
        collector.abandon();
        assertThat(alloc.live()).isZero();
        assertThat(cache.fillsInProgress()).isZero();
    }

    @Test
    void aResponseLargerThanTheEntryLimitIsNotStoredAndItsWaitersBypass() {
        cache = cache(new CacheConfig(true, 1 << 20, 100, Duration.ofSeconds(5)));
        CacheKey key = key("SELECT c FROM orders");
        Lookup.Fill fill = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        CompletionStage<Lookup> w = waiting(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        assertThat(cache.complete(fill.ticket(), response("x".repeat(101)))).isFalse();
        assertThat(w.toCompletableFuture().join()).isInstanceOf(Lookup.Bypass.class);
        assertThat(alloc.allocations()).as("nothing copied").isZero();

        Lookup.Fill again = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        assertThat(cache.complete(again.ticket(), response("x".repeat(100)))).isTrue();
        hit(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE)).release();
        assertThat(cache.stats().rejected()).isEqualTo(1);
    }

    @Test
    void totalBytesStayWithinMaxBytes() {
        long maxBytes = 20_000;
        cache = cache(new CacheConfig(true, maxBytes, 2_000, Duration.ofSeconds(5)));
        for (int i = 0; i < 100; i++) {
            store(key("SELECT c FROM orders WHERE id = " + i), RULE_3, "y".repeat(1_000), ORDERS);
        }
        cache.cleanUp();
        CacheStats stats = cache.stats();
        assertThat(stats.stores()).isEqualTo(100);
        assertThat(stats.evictions()).isPositive();
        assertThat(stats.entries()).isBetween(1L, 19L).isEqualTo(100 - stats.evictions());
        assertThat(stats.bytes()).isEqualTo(stats.entries() * 1_000).isLessThanOrEqualTo(maxBytes);
        assertThat(alloc.live()).as("evicted buffers are released").isEqualTo(stats.entries());
    }

    @Test
    void anEntryExpiresAfterItsRulesTtl() {
        CacheKey shortLived = key("SELECT c FROM orders WHERE id = 1");
        CacheKey longLived = key("SELECT c FROM orders WHERE id = 2");
        store(shortLived, RULE_3, "a", ORDERS); // 100 ms
        store(longLived, RULE_7, "b", ORDERS); // 1 s

        ticker.advance(Duration.ofMillis(99));
        hit(cache.lookup(shortLived, RULE_3, Set.of(ORDERS), CacheMode.USE)).release();
        ticker.advance(Duration.ofMillis(2));
        Lookup.Fill fill = fill(cache.lookup(shortLived, RULE_3, Set.of(ORDERS), CacheMode.USE));
        hit(cache.lookup(longLived, RULE_7, Set.of(ORDERS), CacheMode.USE)).release();
        cache.abandon(fill.ticket());
        cache.cleanUp();
        assertThat(cache.stats().evictions()).isEqualTo(1);
        assertThat(cache.statsByRule().get(3).evictions()).isEqualTo(1);
        assertThat(alloc.live()).isEqualTo(1);

        ticker.advance(Duration.ofSeconds(1));
        cache.abandon(fill(cache.lookup(longLived, RULE_7, Set.of(ORDERS), CacheMode.USE))
                .ticket());
        // an expired entry is never served, but Caffeine's timer wheel removes it at bucket granularity
        ticker.advance(Duration.ofMinutes(2));
        cache.cleanUp();
        assertThat(cache.stats().entries()).isZero();
        assertThat(alloc.live()).isZero();
    }

    @Test
    void closeReleasesEntriesThatExpiredButAreNotYetSweptAway() {
        ticker.advance(Duration.ofMillis(80)); // just past a bucket boundary (2^30 ns)
        store(key("SELECT c FROM orders WHERE id = 1"), RULE_3, "a", ORDERS);
        store(key("SELECT c FROM users WHERE id = 1"), RULE_3, "b", USERS);
        // past the 100 ms TTL but inside the timer wheel's first bucket (~1.07 s): never served,
        // still held until the wheel sweeps; close must not leave them behind (see releasesEverything)
        ticker.advance(Duration.ofMillis(150));
        cache.cleanUp();
        assertThat(alloc.live()).isEqualTo(2);
    }

    @Test
    void aPurgeAllReleasesExpiredEntriesToo() {
        ticker.advance(Duration.ofMillis(80));
        store(key("SELECT c FROM orders WHERE id = 1"), RULE_3, "a", ORDERS);
        ticker.advance(Duration.ofMillis(150));
        cache.invalidateAll();
        assertThat(cache.stats().entries()).isZero();
        assertThat(cache.indexedTables()).isZero();
        assertThat(alloc.live()).isZero();
    }

    @Test
    void aWriteDropsTheResultsThatReadItsTableOnly() {
        CacheKey orders = key("SELECT c FROM orders WHERE id = 1");
        CacheKey join = key("SELECT c FROM orders JOIN users USING (uid)");
        CacheKey users = key("SELECT name FROM users");
        store(orders, RULE_3, "o", ORDERS);
        store(join, RULE_3, "j", ORDERS, USERS);
        store(users, RULE_3, "u", USERS);
        assertThat(cache.indexedTables()).isEqualTo(2);

        assertThat(cache.invalidateTables(Set.of(QualifiedTable.of("SHOP", "Orders"))))
                .isEqualTo(2);
        cache.abandon(fill(cache.lookup(orders, RULE_3, Set.of(ORDERS), CacheMode.USE))
                .ticket());
        cache.abandon(fill(cache.lookup(join, RULE_3, Set.of(ORDERS, USERS), CacheMode.USE))
                .ticket());
        hit(cache.lookup(users, RULE_3, Set.of(USERS), CacheMode.USE)).release();
        assertThat(cache.indexedTables())
                .as("the join's users entry went with it")
                .isEqualTo(1);
        assertThat(cache.stats().invalidations()).isEqualTo(2);
    }

    @Test
    void aFillThatStartedBeforeAnInvalidationOfItsTableIsNotStored() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        Lookup.Fill before = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        CompletionStage<Lookup> joinedBefore = waiting(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        cache.invalidateTable(ORDERS);

        // a lookup after the invalidation does not wait for the older fill: it fills itself
        Lookup.Fill after = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        assertThat(cache.complete(before.ticket(), response("old"))).isFalse();
        // who joined before the invalidation returned was concurrent with the write: the old value is fine
        ByteBuf old = hit(joinedBefore.toCompletableFuture().join());
        assertThat(old.toString(UTF_8)).isEqualTo("old");
        old.release();
        // nothing was stored: the next lookup waits for the fill that started after the invalidation
        CompletionStage<Lookup> joinedAfter = waiting(lookupAgain(key));

        assertThat(cache.complete(after.ticket(), response("new"))).isTrue();
        for (Lookup l : java.util.List.of(joinedAfter.toCompletableFuture().join(), lookupAgain(key))) {
            ByteBuf fresh = hit(l);
            assertThat(fresh.toString(UTF_8)).isEqualTo("new");
            fresh.release();
        }
    }

    @Test
    void anInvalidationOfAnotherTableDoesNotStopAFill() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        Lookup.Fill fill = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        cache.invalidateTable(USERS);
        cache.invalidateTable(QualifiedTable.of("other", "orders"));
        cache.invalidateRule(7);
        cache.invalidateSchema("other");
        assertThat(cache.complete(fill.ticket(), response("v"))).isTrue();
        hit(lookupAgain(key)).release();
    }

    @Test
    void aReadWhoseTablesAreUnknownIsDroppedByAnyWriteToItsSchema() {
        CacheKey unknown = key("SELECT c FROM v_orders_summary");
        CacheKey orders = key("SELECT c FROM orders WHERE id = 1");
        store(unknown, RULE_3, "u");
        store(orders, RULE_3, "o", ORDERS);
        Lookup.Fill filling = fill(cache.lookup(key("SELECT 2 FROM v"), RULE_3, Set.of(), CacheMode.USE));

        assertThat(cache.invalidateTable(QualifiedTable.of("crm", "leads"))).isZero();
        hit(cache.lookup(unknown, RULE_3, Set.of(), CacheMode.USE)).release();
        assertThat(cache.invalidateTable(USERS)).as("users is in shop").isEqualTo(1);
        cache.abandon(
                fill(cache.lookup(unknown, RULE_3, Set.of(), CacheMode.USE)).ticket());
        hit(cache.lookup(orders, RULE_3, Set.of(ORDERS), CacheMode.USE)).release();
        assertThat(cache.complete(filling.ticket(), response("2")))
                .as("began before the write")
                .isFalse();
    }

    @Test
    void purgesByRuleBySchemaAndAll() {
        CacheKey a = key("SELECT c FROM orders WHERE id = 1");
        CacheKey b = key("SELECT c FROM orders WHERE id = 2");
        CacheKey other = CacheKey.forQuery("crm", Digest.of("SELECT 1 FROM leads"), "app", RULE_3, "v");
        store(a, RULE_3, "a", ORDERS);
        store(b, RULE_7, "b", ORDERS);
        store(other, RULE_3, "o", QualifiedTable.of("crm", "leads"));

        assertThat(cache.invalidateRule(3)).isEqualTo(2);
        hit(cache.lookup(b, RULE_7, Set.of(ORDERS), CacheMode.USE)).release();
        store(other, RULE_3, "o", QualifiedTable.of("crm", "leads"));
        assertThat(cache.invalidateSchema("SHOP")).isEqualTo(1);
        hit(cache.lookup(other, RULE_3, Set.of(QualifiedTable.of("crm", "leads")), CacheMode.USE))
                .release();
        store(a, RULE_3, "a", ORDERS);
        assertThat(cache.invalidateAll()).isEqualTo(2);
        assertThat(cache.stats().entries()).isZero();
        assertThat(alloc.live()).isZero();
    }

    @Test
    void aSchemaPurgeCoversEntriesReadingItsTablesFromAnotherSchema() {
        CacheKey key = CacheKey.forQuery("crm", Digest.of("SELECT * FROM shop.orders"), "app", RULE_3, "v");
        store(key, RULE_3, "x", ORDERS);
        assertThat(cache.invalidateSchema("shop")).isEqualTo(1);
    }

    @Test
    void refreshDropsTheStoredResultAndReplacesIt() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        store(key, RULE_3, "v1", ORDERS);
        Lookup.Fill refresh = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.REFRESH));
        CompletionStage<Lookup> w = waiting(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        assertThat(cache.complete(refresh.ticket(), response("v2"))).isTrue();
        hit(w.toCompletableFuture().join()).release();
        ByteBuf b = hit(lookupAgain(key));
        assertThat(b.toString(UTF_8)).isEqualTo("v2");
        b.release();
        assertThat(cache.stats().invalidations()).as("v1 dropped once").isEqualTo(1);
        assertThat(cache.stats().misses()).isEqualTo(2);
    }

    @Test
    void anOlderFillNeverOverwritesANewerOne() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        Lookup.Fill older = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        Lookup.Fill newer = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.REFRESH));
        assertThat(cache.complete(newer.ticket(), response("new"))).isTrue();
        assertThat(cache.complete(older.ticket(), response("old"))).isFalse();
        ByteBuf b = hit(lookupAgain(key));
        assertThat(b.toString(UTF_8)).isEqualTo("new");
        b.release();
    }

    @Test
    void aStuckFillIsTakenOverAfterTheFillTimeout() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        Lookup.Fill stuck = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        ticker.advance(Duration.ofSeconds(4));
        waiting(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        ticker.advance(Duration.ofSeconds(1));
        Lookup.Fill takeover = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        assertThat(cache.complete(takeover.ticket(), response("v"))).isTrue();
        cache.abandon(stuck.ticket()); // its waiter queries the backend itself
        hit(lookupAgain(key)).release();
    }

    @Test
    void keysTellStatementsLiteralsUsersFormatsAndSessionStateApart() {
        Digest d = Digest.of("SELECT c FROM orders WHERE id = 1");
        CachePolicy byUser = new CachePolicy(3, Duration.ofSeconds(1), true);
        assertThat(CacheKey.forQuery("shop", d, "alice", RULE_3, "v"))
                .isEqualTo(CacheKey.forQuery("shop", Digest.of("select c  from orders where id=1"), "bob", RULE_3, "v"))
                .isNotEqualTo(
                        CacheKey.forQuery("shop", Digest.of("SELECT c FROM orders WHERE id = 2"), "a", RULE_3, "v"))
                .isNotEqualTo(
                        CacheKey.forQuery("shop", Digest.of("SELECT c FROM orders WHERE id = 1.0"), "a", RULE_3, "v"))
                .isNotEqualTo(
                        CacheKey.forQuery("shop", Digest.of("SELECT c FROM Orders WHERE id = 1"), "a", RULE_3, "v"))
                .isNotEqualTo(CacheKey.forQuery("crm", d, "alice", RULE_3, "v"))
                .isNotEqualTo(CacheKey.forQuery("shop", d, "alice", RULE_3, "deprecate-eof"))
                .isNotEqualTo(CacheKey.forExecute("shop", d, java.util.List.of(), "alice", RULE_3, "v"));
        assertThat(CacheKey.forQuery("shop", d, "alice", byUser, "v"))
                .isNotEqualTo(CacheKey.forQuery("shop", d, "bob", byUser, "v"));
        Digest prepared = Digest.of("SELECT c FROM orders WHERE id = ?");
        assertThat(CacheKey.forExecute("shop", prepared, java.util.List.of(new byte[] {1, 2}), "a", RULE_3, "v"))
                .isEqualTo(
                        CacheKey.forExecute("shop", prepared, java.util.List.of(new byte[] {1, 2}), "a", RULE_3, "v"))
                .isNotEqualTo(
                        CacheKey.forExecute("shop", prepared, java.util.List.of(new byte[] {1, 3}), "a", RULE_3, "v"));
        assertThat(CacheKey.forExecute("shop", prepared, java.util.Arrays.asList((Object) null), "a", RULE_3, "v"))
                .isNotEqualTo(CacheKey.forExecute("shop", prepared, java.util.List.of(0L), "a", RULE_3, "v"));
    }

    @Test
    void bypassesWhenDisabledWithoutPolicyOrWhenTheStatementSaysSo() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        assertThat(cache.lookup(key, null, Set.of(ORDERS), CacheMode.USE)).isInstanceOf(Lookup.Bypass.class);
        assertThat(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.BYPASS)).isInstanceOf(Lookup.Bypass.class);
        ResultCache off = new ResultCache(
                new CacheConfig(false, 1 << 20, 1 << 10, Duration.ofSeconds(1)),
                new SimpleMeterRegistry(),
                ticker,
                alloc,
                Scheduler.disabledScheduler());
        assertThat(off.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE)).isInstanceOf(Lookup.Bypass.class);
        off.close();
        assertThat(cache.fillsInProgress()).isZero();
    }

    @Test
    void aFillCompletedAfterCloseIsNotStored() {
        CacheKey key = key("SELECT c FROM orders WHERE id = 1");
        Lookup.Fill fill = fill(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE));
        cache.close();
        assertThat(cache.complete(fill.ticket(), response("v"))).isFalse();
        assertThat(cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE)).isInstanceOf(Lookup.Bypass.class);
    }

    @Test
    void countsPerRuleAndInTotalAsMicrometerMeters() {
        CacheKey a = key("SELECT c FROM orders WHERE id = 1");
        CacheKey b = key("SELECT c FROM orders WHERE id = 2");
        store(a, RULE_3, "aaaa", ORDERS);
        store(b, RULE_7, "bb", ORDERS);
        hit(cache.lookup(a, RULE_3, Set.of(ORDERS), CacheMode.USE)).release();
        hit(cache.lookup(a, RULE_3, Set.of(ORDERS), CacheMode.USE)).release();

        assertThat(registry.get("shardgate.cache.hits").functionCounter().count())
                .isEqualTo(2);
        assertThat(registry.get("shardgate.cache.misses").functionCounter().count())
                .isEqualTo(2);
        assertThat(registry.get("shardgate.cache.bytes").gauge().value()).isEqualTo(6);
        assertThat(registry.get("shardgate.cache.entries").gauge().value()).isEqualTo(2);
        assertThat(registry.get("shardgate.cache.rule.hits")
                        .tag("rule", "3")
                        .functionCounter()
                        .count())
                .isEqualTo(2);
        assertThat(registry.get("shardgate.cache.rule.hits")
                        .tag("rule", "7")
                        .functionCounter()
                        .count())
                .isZero();
        assertThat(registry.get("shardgate.cache.rule.bytes")
                        .tag("rule", "7")
                        .gauge()
                        .value())
                .isEqualTo(2);
        assertThat(cache.statsByRule().get(3)).isEqualTo(new CacheStats(2, 0, 1, 1, 0, 0, 0, 1, 4));

        cache.invalidateTable(ORDERS);
        assertThat(registry.get("shardgate.cache.invalidations")
                        .functionCounter()
                        .count())
                .isEqualTo(2);
        assertThat(registry.get("shardgate.cache.bytes").gauge().value()).isZero();
    }

    @Test
    void aHitRacingTheReleaseOfItsEntrySeesAMiss() {
        ByteBuf stored = alloc.directBuffer(3).writeBytes(new byte[] {1, 2, 3}).asReadOnly();
        CacheEntry entry = new CacheEntry(key("SELECT 1"), RULE_3, Set.of(), 0, 1, stored);
        ByteBuf before = entry.retainedDuplicate();
        entry.release();
        assertThat(before.refCnt()).as("a hit handed out keeps the memory").isEqualTo(1);
        assertThat(before.getByte(2)).isEqualTo((byte) 3);
        before.release();
        assertThat(entry.retainedDuplicate()).isNull();
        assertThat(entry.retainedDuplicate()).as("and stays released").isNull();
    }

    private Lookup lookupAgain(CacheKey key) {
        return cache.lookup(key, RULE_3, Set.of(ORDERS), CacheMode.USE);
    }

    private void store(CacheKey key, CachePolicy policy, String value, QualifiedTable... tables) {
        Lookup.Fill fill = fill(cache.lookup(key, policy, Set.of(tables), CacheMode.USE));
        assertThat(cache.complete(fill.ticket(), response(value))).isTrue();
    }

    static CacheKey key(String sql) {
        return CacheKey.forQuery("shop", Digest.of(sql), "app", RULE_3, "v");
    }

    /** A heap buffer standing for relayed packets; complete() neither retains nor releases it. */
    static ByteBuf response(String s) {
        return Unpooled.wrappedBuffer(s.getBytes(UTF_8));
    }

    static Lookup.Fill fill(Lookup l) {
        assertThat(l).isInstanceOf(Lookup.Fill.class);
        return (Lookup.Fill) l;
    }

    static ByteBuf hit(Lookup l) {
        assertThat(l).isInstanceOf(Lookup.Hit.class);
        return ((Lookup.Hit) l).response();
    }

    static CompletionStage<Lookup> waiting(Lookup l) {
        assertThat(l).isInstanceOf(Lookup.Wait.class);
        CompletableFuture<Lookup> f = ((Lookup.Wait) l).result().toCompletableFuture();
        return f;
    }
}
