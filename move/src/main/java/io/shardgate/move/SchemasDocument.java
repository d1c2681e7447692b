package io.shardgate.move;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.Locale;

/** Reading and writing the {@code schemas} document a move changes (YAML or JSON in, JSON out). */
final class SchemasDocument {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();

    private SchemasDocument() {}

    static JsonNode read(String document) {
        try {
            return YAML.readTree(document);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the schemas document does not parse: " + e.getOriginalMessage());
        }
    }

    static String write(JsonNode root) {
        try {
            return JSON.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The object named {@code name} (case-insensitively) in {@code list}; else 400's reason, naming {@code what}. */
    static ObjectNode find(JsonNode list, String name, String what) {
        if (list.isArray()) {
            for (JsonNode n : (ArrayNode) list) {
                if (n.isObject()
                        && n.path("name").asText().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                    return (ObjectNode) n;
                }
            }
        }
        throw new IllegalArgumentException("no " + what + " named " + name + " in the running rules");
    }
}
