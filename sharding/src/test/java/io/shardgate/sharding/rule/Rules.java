package io.shardgate.sharding.rule;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** Loads rule documents shaped like the router's YAML (hostgroups ids, schemas, query_rules). */
public final class Rules {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private Rules() {}

    public static JsonNode yaml(String text) {
        try {
            return YAML.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The test rules in {@code src/test/resources/rules/NAME}. */
    public static RuleSnapshot resource(String name, long version) {
        try (InputStream in = Rules.class.getResourceAsStream("/rules/" + name)) {
            return snapshot(YAML.readTree(in), version);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InvalidRulesException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    public static RuleSnapshot snapshot(JsonNode doc, long version) throws InvalidRulesException {
        List<Integer> hostgroups = new ArrayList<>();
        doc.path("hostgroups").forEach(n -> hostgroups.add(n.asInt()));
        return RuleSnapshot.parse(version, hostgroups, list(doc.path("schemas")), list(doc.path("query_rules")));
    }

    private static List<JsonNode> list(JsonNode node) {
        List<JsonNode> out = new ArrayList<>();
        node.forEach(out::add);
        return out;
    }
}
