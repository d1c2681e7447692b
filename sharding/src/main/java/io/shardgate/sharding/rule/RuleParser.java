package io.shardgate.sharding.rule;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;

/**
 * Reads the {@code schemas} and {@code query_rules} trees (keys documented in sharding/README.md)
 * and validates the whole model, collecting every problem with its path instead of stopping at the
 * first one. Not thread-safe; one instance per parse.
 */
final class RuleParser {
    private static final Set<String> SCHEMA_KEYS =
            Set.of("name", "default_hostgroup", "tables", "binding_groups", "transaction_mode");
    private static final Map<String, Set<String>> TABLE_KEYS = Map.of(
            "table", Set.of("name", "strategy", "hostgroup"),
            "hash",
                    Set.of(
                            "name",
                            "strategy",
                            "column",
                            "key_type",
                            "key_collation",
                            "buckets",
                            "hostgroups",
                            "key_generation"),
            "range", Set.of("name", "strategy", "column", "ranges", "key_generation"),
            "broadcast", Set.of("name", "strategy", "hostgroups"));
    private static final Set<String> QUERY_RULE_KEYS = Set.of(
            "comment",
            "match_digest",
            "user",
            "schema",
            "destination_hostgroup",
            "role",
            "cache_ttl_ms",
            "multiplex",
            "error",
            "apply");
    private static final int MAX_BUCKETS = 65536;

    private final Set<Integer> hostgroups;
    private final List<String> problems = new ArrayList<>();

    RuleParser(Collection<Integer> hostgroups) {
        this.hostgroups = new TreeSet<>(hostgroups);
    }

    RuleSnapshot parse(long version, List<JsonNode> schemaNodes, List<JsonNode> ruleNodes)
            throws InvalidRulesException {
        Map<String, SchemaRule> schemas = new LinkedHashMap<>();
        Set<String> names = new java.util.HashSet<>();
        for (int i = 0; i < schemaNodes.size(); i++) {
            String name = schemaNodes.get(i).path("name").asText("");
            if (!name.isEmpty() && !names.add(name)) {
                problems.add("schemas[" + i + "]: duplicate schema '" + name + "'");
                continue;
            }
            SchemaRule schema = schema(schemaNodes.get(i), "schemas[" + i + "]");
            if (schema != null) {
                schemas.put(schema.name(), schema);
            }
        }
        List<QueryRule> rules = new ArrayList<>();
        for (int i = 0; i < ruleNodes.size(); i++) {
            QueryRule rule = queryRule(ruleNodes.get(i), i, "query_rules[" + i + "]");
            if (rule != null) {
                rules.add(rule);
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidRulesException(problems);
        }
        return new RuleSnapshot(version, schemas, new TreeSet<>(hostgroups), rules);
    }

    private SchemaRule schema(JsonNode node, String path) {
        if (!node.isObject()) {
            problems.add(path + ": must be a mapping");
            return null;
        }
        String name = text(node, "name", path, true);
        if (name != null) {
            path = "schemas." + name;
        }
        unknownKeys(node, SCHEMA_KEYS, path);
        Integer defaultHostgroup = hostgroup(node, "default_hostgroup", path, true);
        Map<String, TableRule> tables = new LinkedHashMap<>();
        Set<String> tableNames = new java.util.HashSet<>();
        List<JsonNode> broadcastNodes = new ArrayList<>();
        JsonNode tableNodes = node.path("tables");
        if (!tableNodes.isMissingNode() && !tableNodes.isArray()) {
            problems.add(path + ".tables: must be a list");
        }
        for (int i = 0; i < tableNodes.size() && tableNodes.isArray(); i++) {
            JsonNode t = tableNodes.get(i);
            String tablePath = path + ".tables[" + i + "]";
            String tableName = t.isObject() ? text(t, "name", tablePath, true) : null;
            if (!t.isObject()) {
                problems.add(tablePath + ": must be a mapping");
                continue;
            }
            if (tableName == null) {
                continue;
            }
            tablePath = path + ".tables." + tableName;
            String key = tableName.toLowerCase(Locale.ROOT);
            if (!tableNames.add(key)) {
                problems.add(tablePath + ": duplicate table (names are case-insensitive)");
                continue;
            }
            if ("broadcast".equals(t.path("strategy").asText(null))) {
                broadcastNodes.add(t);
                tables.put(key, null);
                continue;
            }
            ShardingStrategy strategy = strategy(t, tablePath);
            if (strategy != null) {
                tables.put(key, new TableRule(tableName, strategy, keyGeneration(t, strategy, tablePath)));
            }
        }
        // Broadcast tables default to every hostgroup the schema uses, so they need the others first.
        Set<Integer> used = new TreeSet<>();
        if (defaultHostgroup != null) {
            used.add(defaultHostgroup);
        }
        tables.values().stream()
                .filter(r -> r != null)
                .forEach(r -> used.addAll(r.strategy().hostgroups()));
        for (JsonNode t : broadcastNodes) {
            String tableName = t.get("name").asText();
            String tablePath = path + ".tables." + tableName;
            unknownKeys(t, TABLE_KEYS.get("broadcast"), tablePath);
            List<Integer> copies = new ArrayList<>(used);
            if (t.has("hostgroups")) {
                copies = hostgroupList(t.get("hostgroups"), tablePath + ".hostgroups");
            }
            tables.put(tableName.toLowerCase(Locale.ROOT), new TableRule(tableName, new BroadcastStrategy(copies)));
        }
        tables.values().removeIf(r -> r == null);
        List<List<String>> groups =
                bindingGroups(node.path("binding_groups"), tables, tableNames, path + ".binding_groups");
        TransactionMode mode = transactionMode(node, path);
        if (name == null || defaultHostgroup == null || mode == null) {
            return null;
        }
        return new SchemaRule(name, defaultHostgroup, tables, groups, mode);
    }

    private ShardingStrategy strategy(JsonNode t, String path) {
        String kind = text(t, "strategy", path, true);
        if (kind == null) {
            return null;
        }
        Set<String> keys = TABLE_KEYS.get(kind);
        if (keys == null) {
            problems.add(path + ".strategy: unknown strategy '" + kind + "' (table, hash, range, broadcast)");
            return null;
        }
        unknownKeys(t, keys, path);
        switch (kind) {
            case "table": {
                Integer hg = hostgroup(t, "hostgroup", path, true);
                return hg == null ? null : new SingleStrategy(hg);
            }
            case "hash":
                return hash(t, path);
            default:
                return range(t, path);
        }
    }

    /** {@code key_generation} of a hash or range table: the generated keys must be keys it can place. */
    private KeyGeneration keyGeneration(JsonNode t, ShardingStrategy strategy, String path) {
        String value = strategy instanceof KeyedStrategy ? text(t, "key_generation", path, false) : null;
        if (value == null || value.equals("none")) {
            return KeyGeneration.NONE;
        }
        if (!value.equals("snowflake")) {
            problems.add(path + ".key_generation: must be snowflake or none, not '" + value + "'");
            return KeyGeneration.NONE;
        }
        KeyedStrategy keyed = (KeyedStrategy) strategy;
        if (keyed.keyType() != KeyType.INTEGER) {
            problems.add(path + ".key_generation: snowflake ids are 64-bit integers; key_type must be integer");
        }
        if (keyed instanceof RangeStrategy range
                && range.ranges().get(range.ranges().size() - 1).below() != null) {
            problems.add(path + ".key_generation: snowflake ids grow with time, so the last range must be unbounded"
                    + " (omit its 'below'), or generated keys would fall outside every range");
        }
        return KeyGeneration.SNOWFLAKE;
    }

    private HashStrategy hash(JsonNode t, String path) {
        String column = text(t, "column", path, true);
        KeyType keyType = KeyType.INTEGER;
        String keyTypeText = text(t, "key_type", path, false);
        if (keyTypeText != null) {
            switch (keyTypeText) {
                case "integer" -> keyType = KeyType.INTEGER;
                case "string" -> keyType = KeyType.STRING;
                default -> problems.add(path + ".key_type: must be integer or string, not '" + keyTypeText + "'");
            }
        }
        KeyCollation keyCollation = KeyCollation.BINARY;
        String collationText = text(t, "key_collation", path, false);
        if (collationText != null) {
            keyCollation = KeyCollation.ofRuleName(collationText);
            if (keyCollation == null) {
                problems.add(path + ".key_collation: must be one of " + String.join(", ", KeyCollation.ruleNames())
                        + ", not '" + collationText + "'");
                keyCollation = KeyCollation.BINARY;
            } else if (keyType != KeyType.STRING) {
                problems.add(path + ".key_collation: only for key_type: string");
            }
        }
        JsonNode bucketsNode = t.path("buckets");
        if (!bucketsNode.canConvertToExactIntegral()
                || bucketsNode.asLong() < 1
                || bucketsNode.asLong() > MAX_BUCKETS) {
            problems.add(path + ".buckets: must be an integer from 1 to " + MAX_BUCKETS);
            return null;
        }
        int buckets = bucketsNode.asInt();
        JsonNode map = t.path("hostgroups");
        if (!map.isObject() || map.isEmpty()) {
            problems.add(path + ".hostgroups: must map each hostgroup id to bucket ranges, e.g. {10: \"0-511\"}");
            return null;
        }
        int[] owner = new int[buckets];
        Arrays.fill(owner, Integer.MIN_VALUE);
        boolean ok = true;
        for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String hgPath = path + ".hostgroups." + e.getKey();
            Integer hg = hostgroupId(e.getKey(), hgPath);
            if (hg == null) {
                ok = false;
                continue;
            }
            ok &= assignBuckets(e.getValue().asText(""), hg, owner, hgPath);
        }
        List<String> unmapped = new ArrayList<>();
        for (int b = 0; b < buckets; b++) {
            if (owner[b] == Integer.MIN_VALUE) {
                int end = b;
                while (end + 1 < buckets && owner[end + 1] == Integer.MIN_VALUE) {
                    end++;
                }
                unmapped.add(b == end ? Integer.toString(b) : b + "-" + end);
                b = end;
            }
        }
        if (!unmapped.isEmpty()) {
            problems.add(
                    path + ".hostgroups: buckets " + String.join(",", unmapped) + " are not mapped to any hostgroup");
            ok = false;
        }
        return ok && column != null ? new HashStrategy(column, keyType, keyCollation, owner) : null;
    }

    private boolean assignBuckets(String spec, int hg, int[] owner, String path) {
        if (spec.isBlank()) {
            problems.add(path + ": must be bucket ranges like \"0-511\" or \"0-255,512-767\"");
            return false;
        }
        boolean ok = true;
        for (String part : spec.split(",")) {
            String p = part.trim();
            int dash = p.indexOf('-');
            int from;
            int to;
            try {
                from = Integer.parseInt(dash < 0 ? p : p.substring(0, dash).trim());
                to = dash < 0 ? from : Integer.parseInt(p.substring(dash + 1).trim());
            } catch (NumberFormatException e) {
                problems.add(path + ": '" + p + "' is not a bucket or a range of buckets like 0-511");
                ok = false;
                continue;
            }
            if (from > to || from < 0 || to >= owner.length) {
                problems.add(path + ": range " + p + " is outside buckets 0-" + (owner.length - 1) + " or reversed");
                ok = false;
                continue;
            }
            for (int b = from; b <= to; b++) {
                if (owner[b] == Integer.MIN_VALUE) {
                    owner[b] = hg;
                } else if (ok) {
                    // one line per conflicting range is enough; the rest of the range is still assigned
                    problems.add(path + ": bucket " + b + " is already mapped to hostgroup " + owner[b]);
                    ok = false;
                }
            }
        }
        return ok;
    }

    private RangeStrategy range(JsonNode t, String path) {
        String column = text(t, "column", path, true);
        JsonNode list = t.path("ranges");
        if (!list.isArray() || list.isEmpty()) {
            problems.add(path + ".ranges: must be a non-empty list of {below: N, hostgroup: H}");
            return null;
        }
        List<RangeStrategy.Shard> shards = new ArrayList<>();
        Long previous = null;
        boolean ok = true;
        for (int i = 0; i < list.size(); i++) {
            JsonNode r = list.get(i);
            String rPath = path + ".ranges[" + i + "]";
            unknownKeys(r, Set.of("below", "hostgroup"), rPath);
            Integer hg = hostgroup(r, "hostgroup", rPath, true);
            Long below = null;
            if (r.has("below")) {
                if (!r.get("below").canConvertToLong() || !r.get("below").isIntegralNumber()) {
                    problems.add(rPath + ".below: must be an integer");
                    ok = false;
                } else {
                    below = r.get("below").asLong();
                    if (previous != null && below <= previous) {
                        problems.add(rPath + ".below: " + below + " must be greater than the previous range's "
                                + previous + " (ranges are ordered and must not overlap)");
                        ok = false;
                    }
                    previous = below;
                }
            } else if (i != list.size() - 1) {
                problems.add(rPath + ": only the last range may omit 'below' (it is unbounded)");
                ok = false;
            }
            ok &= hg != null;
            if (hg != null) {
                shards.add(new RangeStrategy.Shard(below, hg));
            }
        }
        return ok && column != null ? new RangeStrategy(column, shards) : null;
    }

    private List<List<String>> bindingGroups(
            JsonNode node, Map<String, TableRule> tables, Set<String> tableNames, String path) {
        List<List<String>> groups = new ArrayList<>();
        if (node.isMissingNode()) {
            return groups;
        }
        if (!node.isArray()) {
            problems.add(path + ": must be a list of lists of table names");
            return groups;
        }
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode g = node.get(i);
            String gPath = path + "[" + i + "]";
            if (!g.isArray() || g.size() < 2) {
                problems.add(gPath + ": must list at least two tables");
                continue;
            }
            List<String> members = new ArrayList<>();
            TableRule first = null;
            for (JsonNode m : g) {
                String name = m.asText();
                TableRule rule = tables.get(name.toLowerCase(Locale.ROOT));
                Integer other = seen.put(name.toLowerCase(Locale.ROOT), i);
                if (other != null) {
                    problems.add(gPath + ": table " + name + " is already in binding group " + other);
                }
                if (rule == null) {
                    if (!tableNames.contains(name.toLowerCase(Locale.ROOT))) {
                        problems.add(gPath + ": table " + name + " is not listed in tables");
                    } // else: the table's own problems are already reported
                    continue;
                }
                if (!rule.sharded()) {
                    problems.add(gPath + ": table " + name + " is not sharded by hash or range");
                    continue;
                }
                if (first == null) {
                    first = rule;
                } else if (!first.keyed().placesAlike(rule.keyed())) {
                    problems.add(gPath + ": " + name + " (" + rule.strategy() + ") is not sharded like " + first.name()
                            + " (" + first.strategy() + ")");
                }
                members.add(rule.name());
            }
            groups.add(members);
        }
        return groups;
    }

    private QueryRule queryRule(JsonNode node, int index, String path) {
        if (!node.isObject()) {
            problems.add(path + ": must be a mapping");
            return null;
        }
        unknownKeys(node, QUERY_RULE_KEYS, path);
        int before = problems.size();
        Pattern digest = null;
        String regex = text(node, "match_digest", path, false);
        if (regex != null) {
            try {
                digest = Pattern.compile(regex, Pattern.CASE_INSENSITIVE);
            } catch (PatternSyntaxException e) {
                problems.add(path + ".match_digest: bad regex: " + e.getDescription() + " at index " + e.getIndex());
            }
        }
        Integer destination =
                node.has("destination_hostgroup") ? hostgroup(node, "destination_hostgroup", path, true) : null;
        Role role = null;
        String roleText = text(node, "role", path, false);
        if (roleText != null) {
            switch (roleText) {
                case "reader" -> role = Role.READER;
                case "writer" -> role = Role.WRITER;
                default -> problems.add(path + ".role: must be reader or writer, not '" + roleText + "'");
            }
        }
        Long ttl = null;
        if (node.has("cache_ttl_ms")) {
            JsonNode n = node.get("cache_ttl_ms");
            if (!n.isIntegralNumber() || n.asLong() < 0) {
                problems.add(path + ".cache_ttl_ms: must be a non-negative integer (milliseconds)");
            } else {
                ttl = n.asLong();
            }
        }
        Boolean multiplex = bool(node, "multiplex", path);
        Boolean apply = bool(node, "apply", path);
        String error = text(node, "error", path, false);
        if (Stream.of("destination_hostgroup", "role", "cache_ttl_ms", "multiplex", "error")
                .noneMatch(node::has)) {
            problems.add(path + ": has no action (destination_hostgroup, role, cache_ttl_ms, multiplex or error)");
        }
        if (problems.size() > before) {
            return null;
        }
        return new QueryRule(
                index,
                text(node, "comment", path, false),
                digest,
                text(node, "user", path, false),
                text(node, "schema", path, false),
                destination,
                role,
                ttl,
                multiplex,
                error,
                apply == null || apply);
    }

    /** {@code transaction_mode}: best_effort when absent; null (a problem noted) when not a known mode. */
    private TransactionMode transactionMode(JsonNode node, String path) {
        String text = text(node, "transaction_mode", path, false);
        if (text == null) {
            return node.hasNonNull("transaction_mode") ? null : TransactionMode.BEST_EFFORT;
        }
        TransactionMode mode = TransactionMode.named(text);
        if (mode == null) {
            problems.add(
                    path + ".transaction_mode: '" + text + "' is not a transaction mode (best_effort or two_phase)");
        }
        return mode;
    }

    private String text(JsonNode node, String key, String path, boolean required) {
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            if (required) {
                problems.add(path + "." + key + ": is required");
            }
            return null;
        }
        if (!v.isTextual() || v.asText().isEmpty()) {
            problems.add(path + "." + key + ": must be a non-empty string");
            return null;
        }
        return v.asText();
    }

    private Boolean bool(JsonNode node, String key, String path) {
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isBoolean()) {
            problems.add(path + "." + key + ": must be true or false");
            return null;
        }
        return v.asBoolean();
    }

    private Integer hostgroup(JsonNode node, String key, String path, boolean required) {
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            if (required) {
                problems.add(path + "." + key + ": is required");
            }
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            problems.add(path + "." + key + ": must be a hostgroup id (an integer)");
            return null;
        }
        return known(v.asInt(), path + "." + key);
    }

    private Integer hostgroupId(String text, String path) {
        try {
            return known(Integer.parseInt(text.trim()), path);
        } catch (NumberFormatException e) {
            problems.add(path + ": '" + text + "' is not a hostgroup id");
            return null;
        }
    }

    private Integer known(int id, String path) {
        if (!hostgroups.contains(id)) {
            problems.add(path + ": unknown hostgroup " + id + " (known: " + hostgroups + ")");
            return null;
        }
        return id;
    }

    private List<Integer> hostgroupList(JsonNode node, String path) {
        List<Integer> ids = new ArrayList<>();
        if (!node.isArray() || node.isEmpty()) {
            problems.add(path + ": must be a non-empty list of hostgroup ids");
            return ids;
        }
        for (JsonNode n : node) {
            if (!n.isIntegralNumber()) {
                problems.add(path + ": '" + n.asText() + "' is not a hostgroup id");
            } else if (known(n.asInt(), path) != null) {
                ids.add(n.asInt());
            }
        }
        return ids;
    }

    private void unknownKeys(JsonNode node, Set<String> allowed, String path) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!allowed.contains(key)) {
                problems.add(UnknownKey.problem(path, key, allowed));
            }
        }
    }
}
