package io.shardgate.sharding.plan;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plans by {@link PlanKey}, bounded by entry count (Caffeine, W-TinyLFU eviction). A hit compares
 * the plan's normalized text with the digest's, so two statements whose 64-bit digests collide
 * never share a plan (the colliding one is planned and not cached). When a newer rule version is
 * seen, every plan of older versions is dropped. Thread-safe; a hit allocates at most its lookup
 * key, which C2 scalar-replaces when the lookup inlines (PlanCacheHitBenchmark measures it).
 */
public final class PlanCache {
    private final Cache<PlanKey, Plan> plans;
    private final Planner planner;
    private final AtomicLong newestVersion = new AtomicLong(Long.MIN_VALUE);

    public PlanCache(Planner planner, long maximumPlans) {
        this.planner = planner;
        this.plans = Caffeine.newBuilder().maximumSize(maximumPlans).build();
    }

    /** The plan of {@code digest} in {@code schema} under {@code rules}, planning on a miss only. */
    public Plan get(Digest digest, String schema, RuleSnapshot rules) {
        long version = rules.version();
        long newest = newestVersion.get();
        if (version > newest && newestVersion.compareAndSet(newest, version)) {
            plans.asMap().keySet().removeIf(k -> k.ruleVersion() < version);
        }
        // The lookup key is used for the lookup only, so that C2 can scalar-replace it (a hit then
        // allocates nothing); a key that a miss stores is a separate object.
        Plan plan = plans.getIfPresent(new PlanKey(version, schema, digest.hash()));
        if (plan != null && plan.text().equals(digest.text())) {
            return plan;
        }
        return plan != null ? planner.plan(digest, schema, rules) : planAndCache(digest, schema, rules);
    }

    private Plan planAndCache(Digest digest, String schema, RuleSnapshot rules) {
        return plans.get(new PlanKey(rules.version(), schema, digest.hash()), k -> planner.plan(digest, schema, rules));
    }

    /** Number of cached plans (approximate under concurrent use). */
    public long size() {
        plans.cleanUp();
        return plans.estimatedSize();
    }
}
