package io.shardgate.cache;

import static io.shardgate.cache.ResultCacheTest.fill;
import static io.shardgate.cache.ResultCacheTest.hit;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Scheduler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.sharding.digest.Digest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A new {@code cache:} section applied to a running cache (a published configuration version). */
class ResultCacheReconfigureTest {
    private static final CachePolicy RULE = new CachePolicy(0, Duration.ofMinutes(1), false);
    private static final QualifiedTable T = QualifiedTable.of("s", "t");

    private final TrackingAllocator alloc = new TrackingAllocator();
    private final ResultCache cache = new ResultCache(
            new CacheConfig(true, 1 << 20, 64 << 10, Duration.ofSeconds(5)),
            new SimpleMeterRegistry(),
            new FakeTicker(),
            alloc,
            Scheduler.disabledScheduler());

    private static CacheKey key(String sql) {
        return CacheKey.forQuery("s", Digest.of(sql), "app", RULE, "v");
    }

    @AfterEach
    void releasesEverything() {
        cache.close();
        assertThat(alloc.live()).isZero();
    }

    private void store(int i, int bytes) {
        Lookup.Fill fill = fill(cache.lookup(key("SELECT " + i), RULE, Set.of(T), CacheMode.USE));
        assertThat(cache.complete(fill.ticket(), Unpooled.wrappedBuffer(new byte[bytes])))
                .isTrue();
    }

    @Test
    void aSmallerBoundEvictsInPlaceAndKeepsWhatFits() {
        for (int i = 0; i < 20; i++) {
            store(i, 10_000);
        }
        assertThat(cache.stats().entries()).isEqualTo(20);
        cache.reconfigure(new CacheConfig(true, 50_000, 10_000, Duration.ofSeconds(5)));
        cache.cleanUp();
        assertThat(cache.stats().bytes()).isLessThanOrEqualTo(50_000);
        assertThat(cache.stats().entries()).isPositive().isLessThan(20);
        assertThat(cache.maxEntryBytes()).isEqualTo(10_000);
        // a result above the new entry bound is not stored
        Lookup.Fill fill = fill(cache.lookup(key("SELECT big"), RULE, Set.of(T), CacheMode.USE));
        assertThat(cache.complete(fill.ticket(), Unpooled.wrappedBuffer(new byte[20_000])))
                .isFalse();
    }

    @Test
    void switchedOffItDropsEverythingAndBypasses_thenOnAgainItCaches() {
        store(1, 100);
        cache.reconfigure(new CacheConfig(false, 1 << 20, 64 << 10, Duration.ofSeconds(5)));
        assertThat(cache.stats().entries()).isZero();
        assertThat(cache.lookup(key("SELECT 1"), RULE, Set.of(T), CacheMode.USE))
                .isInstanceOf(Lookup.Bypass.class);
        cache.reconfigure(new CacheConfig(true, 1 << 20, 64 << 10, Duration.ofSeconds(5)));
        store(1, 100);
        ByteBuf hit = hit(cache.lookup(key("SELECT 1"), RULE, Set.of(T), CacheMode.USE));
        assertThat(hit.toString(StandardCharsets.UTF_8)).hasSize(100);
        hit.release();
    }
}
