package io.shardgate.router.control;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.protocol.auth.StoredCredential;
import io.shardgate.router.config.ConfigException;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.config.UserConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The cluster-wide part of a router configuration as the control plane stores it: one document per
 * YAML section ({@code hostgroups}, {@code users}, {@code schemas}, {@code query_rules}, {@code
 * cache}), each the JSON of that section. Users are stored as password hashes ({@code *HEX40
 * sha2:HEX64}), never plaintext; backend passwords in {@code hostgroups} are stored as given (the
 * router needs them to log in), so protect the ZooKeeper root accordingly.
 *
 * <p>The other direction accepts JSON or YAML text per document, so an operator can PUT either.
 * {@code server}, {@code zookeeper} and {@code admin} stay local to each router and are never
 * stored.
 */
public final class ClusterDocuments {
    /** Sections a cluster version may hold. */
    public static final Set<String> SECTIONS = Set.of(
            ConfigDocuments.HOSTGROUPS,
            ConfigDocuments.USERS,
            ConfigDocuments.SCHEMAS,
            ConfigDocuments.QUERY_RULES,
            ConfigDocuments.CACHE);

    private static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .setDefaultPropertyInclusion(JsonInclude.Include.NON_NULL);
    /** YAML is a superset of JSON: one reader for both kinds of document. */
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private ClusterDocuments() {}

    /** The documents of {@code config}'s cluster sections (what the YAML seeds). */
    public static ConfigDocuments of(RouterConfig config) {
        Map<String, String> sections = new TreeMap<>();
        sections.put(ConfigDocuments.HOSTGROUPS, write(JSON.valueToTree(config.hostgroups())));
        ArrayNode users = JSON.createArrayNode();
        for (UserConfig user : config.users()) {
            ObjectNode node = users.addObject()
                    .put("name", user.name())
                    .put("password_hash", user.credential().render());
            if (user.maxConnections() != 0) {
                node.put("max_connections", user.maxConnections());
            }
            if (user.defaultSchema() != null) {
                node.put("default_schema", user.defaultSchema());
            }
            if (user.requireTls()) {
                node.put("require_tls", true);
            }
            if (user.connectionAdmin()) {
                node.put("connection_admin", true);
            }
        }
        sections.put(ConfigDocuments.USERS, write(users));
        sections.put(ConfigDocuments.SCHEMAS, write(JSON.valueToTree(config.schemas())));
        sections.put(ConfigDocuments.QUERY_RULES, write(JSON.valueToTree(config.queryRules())));
        if (config.cache() != null && !config.cache().isNull()) {
            sections.put(ConfigDocuments.CACHE, write(config.cache()));
        }
        return ConfigDocuments.of(sections);
    }

    /** What {@link #read} makes of a version: the router configuration, or why there is none. */
    public record Reading(RouterConfig config, List<String> problems) {
        public Reading {
            problems = List.copyOf(problems);
        }
    }

    /**
     * The configuration {@code local}'s router runs with {@code documents}: the documents' cluster
     * sections with {@code local}'s {@code server} and {@code zookeeper}, validated whole (the same
     * checks as a YAML file at start: users, hostgroups, sharding rules against the hostgroups).
     */
    public static Reading read(RouterConfig local, ConfigDocuments documents) {
        List<String> problems = new ArrayList<>();
        ObjectNode tree = YAML.createObjectNode();
        for (Map.Entry<String, String> e : documents.sections().entrySet()) {
            if (!SECTIONS.contains(e.getKey())) {
                problems.add("unknown section '" + e.getKey() + "' (known: " + new java.util.TreeSet<>(SECTIONS) + ")");
                continue;
            }
            try {
                JsonNode node = YAML.readTree(e.getValue());
                if (node != null && !node.isMissingNode() && !node.isNull()) {
                    tree.set(e.getKey(), node);
                }
                if (e.getKey().equals(ConfigDocuments.USERS) && node != null) {
                    for (JsonNode user : node) {
                        if (user.has("password")) {
                            problems.add("users: '" + user.path("name").asText() + "' has a plaintext password;"
                                    + " the cluster stores password_hash only (publishing through the router"
                                    + " hashes it)");
                        }
                    }
                }
            } catch (JsonProcessingException ex) {
                problems.add(e.getKey() + ": not JSON or YAML: " + ex.getOriginalMessage());
            }
        }
        if (!problems.isEmpty()) {
            return new Reading(null, problems);
        }
        RouterConfig cluster;
        try {
            cluster = RouterConfig.fromTree(tree, "config");
        } catch (ConfigException e) {
            return new Reading(null, e.problems());
        }
        RouterConfig merged = new RouterConfig(
                local.server(),
                cluster.users(),
                local.zookeeper(),
                cluster.hostgroups(),
                cluster.schemas(),
                cluster.queryRules(),
                cluster.cache(),
                local.admin());
        problems.addAll(merged.validate());
        return new Reading(problems.isEmpty() ? merged : null, problems);
    }

    /**
     * {@code documents} with every plaintext {@code password} of the {@code users} section replaced
     * by its {@code password_hash}: what publishers do before a version is written, so that no
     * plaintext reaches ZooKeeper. A section that does not parse is left for validation to report.
     */
    public static ConfigDocuments hashPasswords(ConfigDocuments documents) {
        String text = documents.get(ConfigDocuments.USERS);
        if (text == null) {
            return documents;
        }
        JsonNode users;
        try {
            users = YAML.readTree(text);
        } catch (JsonProcessingException e) {
            return documents;
        }
        if (users == null || !users.isArray()) {
            return documents;
        }
        boolean changed = false;
        for (JsonNode user : users) {
            if (user instanceof ObjectNode object
                    && object.get("password") != null
                    && object.get("password").isTextual()
                    && !object.has("password_hash")) {
                String hash = StoredCredential.fromPassword(
                                object.remove("password").textValue())
                        .render();
                object.put("password_hash", hash);
                changed = true;
            }
        }
        if (!changed) {
            return documents;
        }
        Map<String, String> sections = new TreeMap<>(documents.sections());
        sections.put(ConfigDocuments.USERS, write(users));
        return ConfigDocuments.of(sections);
    }

    private static String write(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a configuration tree always serialises", e);
        }
    }
}
