package io.shardgate.cache;

import com.github.benmanes.caffeine.cache.Expiry;

/** Each stored result lives for its rule's TTL from the moment it was stored; reads do not extend it. */
final class TtlExpiry implements Expiry<CacheKey, CacheEntry> {
    @Override
    public long expireAfterCreate(CacheKey key, CacheEntry e, long now) {
        return e.policy.ttl().toNanos();
    }

    @Override
    public long expireAfterUpdate(CacheKey key, CacheEntry e, long now, long remaining) {
        return e.policy.ttl().toNanos();
    }

    @Override
    public long expireAfterRead(CacheKey key, CacheEntry e, long now, long remaining) {
        return remaining;
    }
}
