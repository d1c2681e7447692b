package io.shardgate.benchmarks;

import com.github.benmanes.caffeine.cache.Scheduler;
import com.github.benmanes.caffeine.cache.Ticker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.shardgate.cache.CacheConfig;
import io.shardgate.cache.CacheKey;
import io.shardgate.cache.CacheMode;
import io.shardgate.cache.CachePolicy;
import io.shardgate.cache.Cacheability;
import io.shardgate.cache.Lookup;
import io.shardgate.cache.ResultCache;
import io.shardgate.router.resultcache.CacheShape;
import io.shardgate.router.resultcache.ResponseVariant;
import io.shardgate.router.resultcache.RouterResultCache;
import io.shardgate.sharding.digest.Digest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A result-cache hit as a session serves it: the statement's digest, its shape's facts ({@link
 * RouterResultCache#shape}: remembered per shape), {@link Cacheability}, its {@link CacheKey}, the
 * lookup ({@link RouterResultCache#lookup}: rule version,
 * Caffeine) and the write of the stored 1-row response (a sysbench point select's answer, recorded
 * from MariaDB) to a channel whose sink counts and releases it. Ids cycle through 1024 stored
 * results, so every call has new literals and the same digest, as under sysbench.
 *
 * <p>Baselines in the same run: {@code baselineDigest} is the digest alone, which every statement
 * pays with or without the cache, and {@code baselineWrite} the write of the same bytes without a
 * lookup: {@code hit} minus both is the cache's own cost (key, lookup), to compare with a backend
 * round trip (tens of µs through a proxy).
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar CacheHitBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CacheHitBenchmark {
    private static final int IDS = 1024;
    private static final long RULE_VERSION = 1;

    private final String[] statements = new String[IDS];
    private final CachePolicy policy = new CachePolicy(0, Duration.ofMinutes(10), false);
    private final ResponseVariant variant = new ResponseVariant(0x0100_0000, 0, 45, Map.of());
    private RouterResultCache cache;
    private EmbeddedChannel channel;
    private CountingSink sink;
    private int next;
    private ByteBuf stored;
    /** The stored response: one text row, CLIENT_DEPRECATE_EOF framing. */
    byte[] response;

    @Setup
    public void setUp() {
        response = oneRowResponse();
        cache = new RouterResultCache(new ResultCache(
                new CacheConfig(true, 64L << 20, 1 << 20, Duration.ofSeconds(30)),
                new SimpleMeterRegistry(),
                Ticker.systemTicker(),
                UnpooledByteBufAllocator.DEFAULT,
                Scheduler.disabledScheduler()));
        stored = UnpooledByteBufAllocator.DEFAULT
                .directBuffer()
                .writeBytes(response)
                .asReadOnly();
        sink = new CountingSink();
        channel = new EmbeddedChannel(sink);
        for (int i = 0; i < IDS; i++) {
            statements[i] = Statements.pointSelect(1 + 7919 * i);
            Lookup fill = lookup(Digest.of(statements[i]));
            if (!(fill instanceof Lookup.Fill f)) {
                throw new IllegalStateException(statements[i] + " must miss first, got " + fill);
            }
            ByteBuf bytes = Unpooled.wrappedBuffer(response);
            if (!cache.results().complete(f.ticket(), bytes)) {
                throw new IllegalStateException("the response of " + statements[i] + " was not stored");
            }
        }
        if (cache.results().stats().entries() != IDS) {
            throw new IllegalStateException("expected " + IDS + " stored results, have "
                    + cache.results().stats());
        }
    }

    @TearDown
    public void tearDown() {
        channel.finishAndReleaseAll();
        cache.close();
        stored.release();
    }

    /** Looks up, writes the hit, returns the bytes written so far (a miss throws). */
    @Benchmark
    public long hit() {
        Lookup lookup = lookup(Digest.of(statements[next++ & (IDS - 1)]));
        if (!(lookup instanceof Lookup.Hit hit)) {
            throw new IllegalStateException("expected a hit, got " + lookup);
        }
        channel.writeAndFlush(hit.response(), channel.voidPromise());
        return sink.bytes;
    }

    /** The write of a stored response alone: a retained duplicate of one buffer to the channel. */
    @Benchmark
    public long baselineWrite() {
        channel.writeAndFlush(stored.retainedDuplicate(), channel.voidPromise());
        return sink.bytes;
    }

    @Benchmark
    public Digest baselineDigest() {
        return Digest.of(statements[next++ & (IDS - 1)]);
    }

    private Lookup lookup(Digest digest) {
        CacheShape shape = cache.shape(SysbenchRules.SCHEMA, digest);
        CacheMode mode = Cacheability.decide(digest, shape.uncacheable(), true, false);
        CacheKey key = CacheKey.forQuery(SysbenchRules.SCHEMA, digest, "app", policy, variant);
        return cache.lookup(RULE_VERSION, key, policy, shape, mode);
    }

    /** Column count, one column definition, the first row and the closing OK of a recorded result. */
    private static byte[] oneRowResponse() {
        ByteBuf all = Unpooled.wrappedBuffer(RecordedResponse.load("text-rows-nulls", true));
        ByteBuf out = Unpooled.buffer();
        int sequence = 1;
        int frame = 0;
        int columns = 0;
        int rowsKept = 0;
        while (all.isReadable()) {
            int length = all.getUnsignedMediumLE(all.readerIndex());
            ByteBuf payload = all.slice(all.readerIndex() + 4, length);
            all.skipBytes(4 + length);
            boolean keep;
            if (frame == 0) {
                columns = payload.getUnsignedByte(0);
                keep = true;
            } else if (frame <= columns) {
                keep = true;
            } else if (!all.isReadable()) {
                keep = true; // the closing OK
            } else {
                keep = rowsKept++ == 0;
            }
            if (keep) {
                out.writeMediumLE(length).writeByte(sequence++).writeBytes(payload);
            }
            frame++;
        }
        byte[] bytes = new byte[out.readableBytes()];
        out.readBytes(bytes);
        return bytes;
    }
}
