package io.shardgate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shardgate.sharding.rule.InvalidRulesException;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules the planner benchmarks run under ({@code rules/sysbench.yaml}): schema {@code sbtest}
 * with sbtest1..8 spread over hostgroups 10 and 20 by the {@code table} strategy, and the
 * hash-sharded binding group {@code orders}/{@code order_items} on {@code customer_id}.
 */
final class SysbenchRules {
    static final String SCHEMA = "sbtest";

    private SysbenchRules() {}

    static RuleSnapshot load(long version) {
        try (InputStream in = SysbenchRules.class.getResourceAsStream("/rules/sysbench.yaml")) {
            if (in == null) {
                throw new IllegalStateException("rules/sysbench.yaml is not on the class path");
            }
            JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(in);
            List<Integer> hostgroups = new ArrayList<>();
            doc.path("hostgroups").forEach(n -> hostgroups.add(n.asInt()));
            return RuleSnapshot.parse(version, hostgroups, list(doc.path("schemas")), list(doc.path("query_rules")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InvalidRulesException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private static List<JsonNode> list(JsonNode node) {
        List<JsonNode> out = new ArrayList<>();
        node.forEach(out::add);
        return out;
    }
}
