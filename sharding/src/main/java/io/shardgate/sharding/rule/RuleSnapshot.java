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

    /**
     * The rules of database {@code name} ({@code null} for none): the listed schema, or for a
     * database not listed under {@code schemas} one that lives whole on {@link #defaultHostgroup()}
     * (so a router in front of ordinary databases passes them through; the backend says whether
     * the database exists).
     */
    public SchemaRule schema(String name) {
        if (name == null) {
            return null;
        }
        SchemaRule listed = schemas.get(name);
        return listed != null
                ? listed
                : new SchemaRule(name, defaultHostgroup(), Map.of(), List.of(), TransactionMode.BEST_EFFORT);
    }

    /** True when {@code name} is listed under {@code schemas}. */
    public boolean listed(String name) {
        return name != null && schemas.containsKey(name);
    }

    /** The default hostgroup of database {@code name}: its own, or the global one when unlisted or null. */
    public int homeOf(String name) {
        SchemaRule listed = name == null ? null : schemas.get(name);
        return listed != null ? listed.defaultHostgroup() : defaultHostgroup();
    }

    /** A hostgroup holding {@code table} of database {@code schemaName} (any one of a sharded table's). */
    public int anyHostgroupOf(String schemaName, String table) {
        SchemaRule listed = schemaName == null ? null : schemas.get(schemaName);
        return listed != null ? listed.resolve(table).strategy().hostgroups().get(0) : defaultHostgroup();
    }

    /** Where databases not listed under {@code schemas} live: the lowest hostgroup id. */
    public int defaultHostgroup() {
        return hostgroups.first();
    }

    /** Evaluates the query rules in order for one statement (see {@link QueryRule}). */
    public QueryRuleMatch matchQueryRules(String user, String schema, CharSequence digestText) {
        List<Integer> matched = null;
        Integer destination = null;
        Role role = null;
        Long ttl = null;
        Boolean multiplex = null;
        String error = null;
        for (int i = 0; i < queryRules.size(); i++) { // indexed: no iterator per statement
            QueryRule rule = queryRules.get(i);
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
