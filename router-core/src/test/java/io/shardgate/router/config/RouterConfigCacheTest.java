package io.shardgate.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.cache.CacheConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The {@code cache} section as the router reads it: off by default, validated with the rest. */
class RouterConfigCacheTest {
    private static final String MINIMAL = """
            users:
              - {name: app, password: secret}
            hostgroups:
              - {id: 10, writer: "db1:3307", user: sg, password: pw}
            """;

    @Test
    void theCacheIsOffUnlessTheSectionEnablesIt() {
        assertThat(RouterConfig.parse(MINIMAL).cacheConfig()).isEqualTo(CacheConfig.DEFAULTS);
        CacheConfig on = RouterConfig.parse(MINIMAL
                        + "cache: {enabled: true, max_bytes: 1048576, max_entry_bytes: 4096, fill_timeout_ms: 500}\n")
                .cacheConfig();
        assertThat(on).isEqualTo(new CacheConfig(true, 1048576, 4096, Duration.ofMillis(500)));
    }

    @Test
    void aBadCacheSectionStopsTheStartNamingTheKey() {
        assertThatThrownBy(() -> RouterConfig.parse(MINIMAL + "cache: {enabled: yes please, max_entry_byte: 5}\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("cache.enabled: must be true or false")
                .hasMessageContaining("cache.max_entry_byte: unknown key (did you mean 'max_entry_bytes'?");
        assertThatThrownBy(() -> RouterConfig.parse(MINIMAL + "cache: {max_bytes: 100, max_entry_bytes: 200}\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("cache.max_entry_bytes: must not exceed max_bytes");
    }
}
