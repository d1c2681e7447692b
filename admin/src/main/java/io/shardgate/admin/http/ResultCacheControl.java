package io.shardgate.admin.http;

import io.shardgate.cache.CacheStats;
import io.shardgate.cache.QualifiedTable;
import io.shardgate.cache.ResultCache;
import java.util.Map;

/** {@link CacheControl} over a {@link ResultCache}: the one translation of operators' purges into invalidations. */
public record ResultCacheControl(ResultCache cache) implements CacheControl {
    @Override
    public boolean enabled() {
        return cache.enabled();
    }

    @Override
    public int purgeAll() {
        return cache.invalidateAll();
    }

    @Override
    public int purgeSchema(String schema) {
        return cache.invalidateSchema(schema);
    }

    @Override
    public int purgeTable(String schema, String table) {
        return cache.invalidateTable(QualifiedTable.of(schema, table));
    }

    @Override
    public int purgeRule(int rule) {
        return cache.invalidateRule(rule);
    }

    @Override
    public CacheStats stats() {
        return cache.stats();
    }

    @Override
    public Map<Integer, CacheStats> statsByRule() {
        return cache.statsByRule();
    }
}
