package io.shardgate.cache;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardgate.sharding.rule.UnknownKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The {@code cache:} section of the router's YAML. Which statements are cached, and for how long,
 * is set per query rule with {@code cache_ttl_ms}; this section only switches the cache on and
 * bounds it.
 *
 * @param enabled whether the router consults the cache at all
 * @param maxBytes bound on the bytes held (responses plus an estimate of their keys)
 * @param maxEntryBytes larger responses are not stored
 * @param fillTimeout how long lookups of a key wait on a fill before a new lookup fills it itself
 */
public record CacheConfig(boolean enabled, long maxBytes, int maxEntryBytes, Duration fillTimeout) {
    public static final CacheConfig DEFAULTS = new CacheConfig(false, 256L << 20, 1 << 20, Duration.ofSeconds(30));

    private static final Set<String> FIELDS = Set.of("enabled", "max_bytes", "max_entry_bytes", "fill_timeout_ms");

    public CacheConfig {
        if (maxBytes <= 0 || maxEntryBytes <= 0 || maxEntryBytes > maxBytes) {
            throw new IllegalArgumentException(
                    "need 0 < max_entry_bytes <= max_bytes: " + maxEntryBytes + ", " + maxBytes);
        }
        if (fillTimeout.isNegative() || fillTimeout.isZero()) {
            throw new IllegalArgumentException("fill_timeout_ms must be positive");
        }
    }

    /**
     * Reads the {@code cache} section (absent or null: {@link #DEFAULTS}); unset fields keep their
     * defaults.
     *
     * @throws InvalidCacheConfigException naming every problem, each prefixed with its path
     */
    public static CacheConfig parse(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return DEFAULTS;
        }
        List<String> problems = new ArrayList<>();
        if (!node.isObject()) {
            throw new InvalidCacheConfigException(List.of("cache: must be a mapping"));
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) {
                problems.add(UnknownKey.problem("cache", f, FIELDS));
            }
        }
        boolean enabled = DEFAULTS.enabled;
        if (node.has("enabled")) {
            if (node.get("enabled").isBoolean()) {
                enabled = node.get("enabled").booleanValue();
            } else {
                problems.add("cache.enabled: must be true or false");
            }
        }
        long maxBytes = positive(node, "max_bytes", DEFAULTS.maxBytes, Long.MAX_VALUE, problems);
        long maxEntry = positive(node, "max_entry_bytes", DEFAULTS.maxEntryBytes, Integer.MAX_VALUE, problems);
        long fillMs = positive(node, "fill_timeout_ms", DEFAULTS.fillTimeout.toMillis(), Long.MAX_VALUE, problems);
        if (problems.isEmpty() && maxEntry > maxBytes) {
            problems.add("cache.max_entry_bytes: must not exceed max_bytes (" + maxBytes + ")");
        }
        if (!problems.isEmpty()) {
            throw new InvalidCacheConfigException(problems);
        }
        return new CacheConfig(enabled, maxBytes, (int) maxEntry, Duration.ofMillis(fillMs));
    }

    private static long positive(JsonNode node, String field, long fallback, long max, List<String> problems) {
        if (!node.has(field)) {
            return fallback;
        }
        JsonNode n = node.get(field);
        if (!n.canConvertToLong() || !n.isIntegralNumber() || n.longValue() <= 0 || n.longValue() > max) {
            problems.add("cache." + field + ": must be a positive integer"
                    + (max == Integer.MAX_VALUE ? " below 2 GiB" : ""));
            return fallback;
        }
        return n.longValue();
    }
}
