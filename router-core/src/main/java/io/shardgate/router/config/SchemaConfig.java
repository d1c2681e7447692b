package io.shardgate.router.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;

/**
 * A logical schema clients see: its default hostgroup and, from issue #3 on, its table rules
 * (accepted as raw trees until the rule model exists).
 */
public record SchemaConfig(String name, Integer defaultHostgroup, List<JsonNode> tables) {
    public SchemaConfig {
        Objects.requireNonNull(name, "schemas[].name is required");
        tables = tables == null ? List.of() : List.copyOf(tables);
    }
}
