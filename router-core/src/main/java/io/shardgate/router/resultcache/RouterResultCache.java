package io.shardgate.router.resultcache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.MeterRegistry;
import io.shardgate.admin.http.CacheControl;
import io.shardgate.admin.http.ResultCacheControl;
import io.shardgate.cache.CacheConfig;
import io.shardgate.cache.CacheKey;
import io.shardgate.cache.CacheMode;
import io.shardgate.cache.CachePolicy;
import io.shardgate.cache.Lookup;
import io.shardgate.cache.ResultCache;
import io.shardgate.sharding.digest.Digest;

/**
 * The router's result cache: the shared {@link ResultCache} plus what only the router knows — what
 * each statement shape reads and changes ({@link CacheShape}, remembered per shape), the rule
 * version the stored results were cached under (a new version purges them: rule indexes and TTLs
 * may have changed), and the operators' purge and stats API ({@link #control}).
 *
 * <p>Shared by every session; thread-safe and non-blocking.
 */
public final class RouterResultCache implements AutoCloseable {
    /** Statement shapes whose facts are remembered; a few hundred bytes each. */
    private static final long SHAPES = 10_000;

    private final ResultCache cache;
    private final CacheControl control;
    private final Cache<Shape, CacheShape> shapes =
            Caffeine.newBuilder().maximumSize(SHAPES).build();
    /** The rule version of the results held; -1 before the first lookup. */
    private volatile long ruleVersion = -1;

    /** A shape's key: the digest text is the inner statement's when a SET STATEMENT prefix precedes it. */
    private record Shape(String schema, String text, boolean prefixed) {}

    public RouterResultCache(CacheConfig config, MeterRegistry registry) {
        this(new ResultCache(config, registry));
    }

    public RouterResultCache(ResultCache cache) {
        this.cache = cache;
        this.control = new ResultCacheControl(cache);
    }

    /** The cache itself, for the sessions' fills. */
    public ResultCache results() {
        return cache;
    }

    /**
     * Looks up a cacheable read of shape {@code shape} planned under rule version {@code version};
     * see {@link ResultCache#lookup}.
     */
    public Lookup lookup(long version, CacheKey key, CachePolicy policy, CacheShape shape, CacheMode mode) {
        rulesInForce(version);
        return cache.lookup(key, policy, shape::reads, mode);
    }

    /** What the shape of {@code digest} in session schema {@code schema} reads and changes: worked out once. */
    public CacheShape shape(String schema, Digest digest) {
        return shapes.get(
                new Shape(schema, digest.text(), digest.prefix() != null), key -> CacheShape.of(schema, digest));
    }

    /** Drops what a write (or a committed transaction) changed. */
    public void invalidate(Invalidation what) {
        if (!what.isNone()) {
            what.applyTo(cache);
        }
    }

    /** A new rule version purges everything cached under the old one, once. */
    private void rulesInForce(long version) {
        if (version != ruleVersion) {
            synchronized (this) {
                if (version != ruleVersion) {
                    if (ruleVersion >= 0) {
                        cache.invalidateAll();
                    }
                    ruleVersion = version;
                }
            }
        }
    }

    /** Purges and counters for operators (HTTP {@code /api/cache}, SQL admin). */
    public CacheControl control() {
        return control;
    }

    @Override
    public void close() {
        cache.close();
    }
}
