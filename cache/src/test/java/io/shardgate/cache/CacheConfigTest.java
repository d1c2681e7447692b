package io.shardgate.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CacheConfigTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void absentSectionIsTheDisabledDefault() throws Exception {
        assertThat(CacheConfig.parse(null)).isEqualTo(CacheConfig.DEFAULTS);
        assertThat(CacheConfig.parse(tree("null"))).isEqualTo(CacheConfig.DEFAULTS);
        assertThat(CacheConfig.DEFAULTS.enabled()).isFalse();
    }

    @Test
    void readsEveryField() throws Exception {
        CacheConfig c = CacheConfig.parse(tree(
                "{\"enabled\": true, \"max_bytes\": 1048576, \"max_entry_bytes\": 65536, \"fill_timeout_ms\": 2000}"));
        assertThat(c).isEqualTo(new CacheConfig(true, 1 << 20, 1 << 16, Duration.ofSeconds(2)));
        assertThat(CacheConfig.parse(tree("{\"enabled\": true}")).maxBytes())
                .isEqualTo(CacheConfig.DEFAULTS.maxBytes());
    }

    @Test
    void namesEveryProblem() {
        assertThatThrownBy(() -> CacheConfig.parse(
                        tree("{\"enabled\": \"yes\", \"max_bytes\": -1, \"max_entry_bytes\": 1.5, \"ttl\": 3}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cache.enabled: must be true or false")
                .hasMessageContaining("cache.max_bytes: must be a positive integer")
                .hasMessageContaining("cache.max_entry_bytes: must be a positive integer")
                .hasMessageContaining(
                        "cache.ttl: unknown key (known: [enabled, fill_timeout_ms, max_bytes, max_entry_bytes])");
        assertThatThrownBy(() -> CacheConfig.parse(tree("{\"max_byte\": 1}")))
                .isInstanceOfSatisfying(
                        InvalidCacheConfigException.class,
                        e -> assertThat(e.problems())
                                .containsExactly("cache.max_byte: unknown key (did you mean 'max_bytes'?"
                                        + " known: [enabled, fill_timeout_ms, max_bytes, max_entry_bytes])"));
        assertThatThrownBy(() -> CacheConfig.parse(tree("{\"max_bytes\": 1000, \"max_entry_bytes\": 2000}")))
                .hasMessageContaining("cache.max_entry_bytes: must not exceed max_bytes (1000)");
        assertThatThrownBy(() -> CacheConfig.parse(tree("[1]"))).hasMessageContaining("cache: must be a mapping");
    }

    private static JsonNode tree(String json) throws Exception {
        return JSON.readTree(json);
    }
}
