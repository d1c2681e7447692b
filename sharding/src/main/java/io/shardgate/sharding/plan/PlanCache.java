package io.shardgate.sharding.plan;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.shardgate.sharding.columns.ColumnCatalog;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plans by {@link PlanKey}, bounded by entry count (Caffeine, W-TinyLFU eviction). A hit compares
 * the plan's normalized text with the digest's, so two statements whose 64-bit digests collide
 * never share a plan (the colliding one is planned and not cached). When a newer rule version is
 * seen, every plan of older versions is dropped. Thread-safe.
 *
 * <p>A hit allocates nothing: the lookup goes through a per-thread mutable {@link LookupKey} that
 * equals the stored {@link PlanKey} of the same fields (ConcurrentHashMap, under Caffeine, calls
 * the probe's {@code equals} with the stored key, never the reverse). Relying on C2 to
 * scalar-replace a fresh {@code PlanKey} per lookup worked only when the lookup happened to inline
 * (JMH saw 0 or 32 B/op from run to run).
 */
public final class PlanCache {
    private static final ThreadLocal<LookupKey> PROBE = ThreadLocal.withInitial(LookupKey::new);

    private final Cache<Object, Plan> plans;
    private final Planner planner;
    private final AtomicLong newestVersion = new AtomicLong(Long.MIN_VALUE);

    public PlanCache(Planner planner, long maximumPlans) {
        this.planner = planner;
        this.plans = Caffeine.newBuilder().maximumSize(maximumPlans).build();
    }

    /** The plan of {@code digest} in {@code schema} under {@code rules}, planning on a miss only. */
    public Plan get(Digest digest, String schema, RuleSnapshot rules) {
        return get(digest, schema, rules, ColumnCatalog.EMPTY);
    }

    /**
     * The plan of {@code digest} in {@code schema} under {@code rules} and the tracked column lists
     * {@code columns}; a cached plan that read an older version of those lists is planned again.
     */
    public Plan get(Digest digest, String schema, RuleSnapshot rules, ColumnCatalog columns) {
        long version = rules.version();
        long newest = newestVersion.get();
        if (version > newest && newestVersion.compareAndSet(newest, version)) {
            plans.asMap().keySet().removeIf(k -> ((PlanKey) k).ruleVersion() < version);
        }
        LookupKey probe = PROBE.get().set(version, schema, digest.hash());
        Plan plan;
        try {
            plan = plans.getIfPresent(probe);
        } finally {
            probe.schema = null; // holds no schema name between lookups
        }
        if (plan != null && plan.text().equals(digest.text())) {
            if (plan.columnsVersion() == Plan.NO_COLUMNS || plan.columnsVersion() == columns.version()) {
                return plan;
            }
            Plan replanned = planner.plan(digest, schema, rules, columns);
            plans.put(replanned.key(), replanned);
            return replanned;
        }
        return plan != null
                ? planner.plan(digest, schema, rules, columns)
                : planAndCache(digest, schema, rules, columns);
    }

    private Plan planAndCache(Digest digest, String schema, RuleSnapshot rules, ColumnCatalog columns) {
        return plans.get(
                new PlanKey(rules.version(), schema, digest.hash()), k -> planner.plan(digest, schema, rules, columns));
    }

    /** Number of cached plans (approximate under concurrent use). */
    public long size() {
        plans.cleanUp();
        return plans.estimatedSize();
    }

    /**
     * A reusable probe equal to the {@link PlanKey} of the same fields, with the same hash code
     * (a record's: {@code 31 * (31 * hash(version) + hash(schema)) + hash(digest)}). Only ever
     * passed to lookups, never stored.
     */
    private static final class LookupKey {
        private long ruleVersion;
        private String schema;
        private long digest;
        private int hash;

        LookupKey set(long ruleVersion, String schema, long digest) {
            this.ruleVersion = ruleVersion;
            this.schema = schema;
            this.digest = digest;
            this.hash = PlanKey.hash(ruleVersion, schema, digest);
            return this;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PlanKey k
                    && k.ruleVersion() == ruleVersion
                    && k.digest() == digest
                    && Objects.equals(k.schema(), schema);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
