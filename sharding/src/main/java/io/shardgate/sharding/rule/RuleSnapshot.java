package io.shardgate.sharding.rule;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One immutable, validated version of the sharding rules: logical schemas, the hostgroup ids they
 * may use, and the query rules. Published whole and swapped atomically; plans are keyed by {@link
 * #version()} so a new version never sees an old plan.
 */
public record RuleSnapshot(
        long version, Map<String, SchemaRule> schemas, SortedSet<Integer> hostgroups, List<QueryRule> queryRules) {

    public RuleSnapshot {
        schemas = Map.copyOf(schemas);
        hostgroups = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(hostgroups));
        queryRules = List.copyOf(queryRules);
    }

    /**
     * Parses and validates the YAML {@code schemas} and {@code query_rules} sections (as Jackson
     * trees) against the configured hostgroup ids.
     *
     * @throws InvalidRulesException listing every problem, each prefixed with its path
     */
    public static RuleSnapshot parse(
            long version, Collection<Integer> hostgroups, List<JsonNode> schemas, List<JsonNode> queryRules)
            throws InvalidRulesException {
        return new RuleParser(hostgroups).parse(version, schemas, queryRules);
    }

    /** The schema with this exact name, or {@code null}. */
    public SchemaRule schema(String name) {
        return name == null ? null : schemas.get(name);
    }

    /** Evaluates the query rules in order for one statement (see {@link QueryRule}). */
    public QueryRuleMatch matchQueryRules(String user, String schema, CharSequence digestText) {
        List<Integer> matched = null;
        Integer destination = null;
        Role role = null;
        Long ttl = null;
        Boolean multiplex = null;
        String error = null;
        for (QueryRule rule : queryRules) {
            if (!rule.matches(user, schema, digestText)) {
                continue;
            }
            if (matched == null) {
                matched = new ArrayList<>(2);
            }
            matched.add(rule.index());
            destination = rule.destinationHostgroup() != null ? rule.destinationHostgroup() : destination;
            role = rule.role() != null ? rule.role() : role;
            ttl = rule.cacheTtlMillis() != null ? rule.cacheTtlMillis() : ttl;
            multiplex = rule.multiplex() != null ? rule.multiplex() : multiplex;
            error = rule.error() != null ? rule.error() : error;
            if (rule.apply()) {
                break;
            }
        }
        return matched == null
                ? QueryRuleMatch.NONE
                : new QueryRuleMatch(List.copyOf(matched), destination, role, ttl, multiplex, error);
    }
}
