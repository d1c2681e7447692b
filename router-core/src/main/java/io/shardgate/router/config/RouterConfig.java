package io.shardgate.router.config;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shardgate.cache.CacheConfig;
import io.shardgate.sharding.rule.InvalidRulesException;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The router's YAML configuration: {@code server}, {@code users}, {@code zookeeper},
 * {@code hostgroups}, {@code schemas}, {@code query_rules}, {@code cache} and {@code admin}.
 *
 * <p>Keys are snake_case; unknown keys are rejected so a typo never silently falls back to a
 * default. {@code schemas} and {@code query_rules} are the sharding rules, kept as trees and
 * validated by the sharding module's parser ({@link #rules}); {@code cache} is read by {@link
 * #cacheConfig}. Use {@link #load} or {@link #parse}: both validate the whole
 * document and report every problem at once.
 */
public record RouterConfig(
        ServerSettings server,
        List<UserConfig> users,
        ZooKeeperSettings zookeeper,
        List<HostgroupConfig> hostgroups,
        List<JsonNode> schemas,
        List<JsonNode> queryRules,
        JsonNode cache,
        AdminSettings admin) {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    public RouterConfig {
        server = server == null ? ServerSettings.defaults() : server;
        users = users == null ? List.of() : List.copyOf(users);
        zookeeper = zookeeper == null ? ZooKeeperSettings.defaults() : zookeeper;
        hostgroups = hostgroups == null ? List.of() : List.copyOf(hostgroups);
        schemas = schemas == null ? List.of() : List.copyOf(schemas);
        queryRules = queryRules == null ? List.of() : List.copyOf(queryRules);
        admin = admin == null ? AdminSettings.defaults() : admin;
    }

    /** Reads and validates a YAML file. */
    public static RouterConfig load(Path file) {
        try {
            return parse(Files.readString(file), file.toString());
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
        }
    }

    /** Parses and validates YAML text. */
    public static RouterConfig parse(String yaml) {
        return parse(yaml, "<config>");
    }

    private static RouterConfig parse(String yaml, String source) {
        if (yaml.isBlank()) {
            throw new ConfigException(source + ": empty configuration");
        }
        RouterConfig config;
        try {
            config = YAML.readValue(yaml, RouterConfig.class);
        } catch (UnrecognizedPropertyException e) {
            throw new ConfigException(source + ": unknown key '" + e.getPropertyName() + "' at " + path(e) + " (known: "
                    + e.getKnownPropertyIds() + ")");
        } catch (JsonMappingException e) {
            throw new ConfigException(source + ": " + path(e) + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ConfigException(source + ": not valid YAML: " + e.getMessage());
        }
        if (config == null) {
            throw new ConfigException(source + ": empty configuration");
        }
        List<String> problems = config.validate();
        if (!problems.isEmpty()) {
            throw new ConfigException(source + " is invalid:\n  - " + String.join("\n  - ", problems));
        }
        return config;
    }

    /**
     * Reads the cluster sections ({@code users}, {@code hostgroups}, {@code schemas}, {@code
     * query_rules}, {@code cache}) from a tree, as the control plane holds them; the result carries
     * default {@code server} and {@code zookeeper} sections and is not validated yet.
     *
     * @throws ConfigException naming the first key that cannot be read
     */
    public static RouterConfig fromTree(JsonNode tree, String source) {
        try {
            return YAML.treeToValue(tree, RouterConfig.class);
        } catch (UnrecognizedPropertyException e) {
            throw new ConfigException(source + ": unknown key '" + e.getPropertyName() + "' at " + path(e) + " (known: "
                    + e.getKnownPropertyIds() + ")");
        } catch (JsonMappingException e) {
            throw new ConfigException(source + ": " + path(e) + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ConfigException(source + ": " + e.getMessage());
        }
    }

    private static String path(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                sb.append(sb.length() == 0 ? "" : ".").append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                sb.append('[').append(ref.getIndex()).append(']');
            }
        }
        return sb.length() == 0 ? "top level" : sb.toString();
    }

    /** Every problem of the document, in reading order; empty when it is valid. */
    public List<String> validate() {
        List<String> problems = new ArrayList<>(server.validate());
        problems.addAll(zookeeper.validate());
        problems.addAll(admin.validate());
        if (users.isEmpty()) {
            problems.add("users: at least one user is required");
        }
        Set<String> userNames = new HashSet<>();
        for (UserConfig user : users) {
            if (!userNames.add(user.name())) {
                problems.add("users: duplicate user '" + user.name() + "'");
            }
            if (user.requireTls() && !server.tls().enabled()) {
                problems.add("users: '" + user.name() + "' has require_tls but server.tls.enabled is false:"
                        + " the account could never log in");
            }
        }
        if (hostgroups.isEmpty()) {
            problems.add("hostgroups: at least one hostgroup is required");
        }
        Set<Integer> ids = new HashSet<>();
        for (HostgroupConfig hostgroup : hostgroups) {
            if (!ids.add(hostgroup.id())) {
                problems.add("hostgroups: duplicate id " + hostgroup.id());
            }
            problems.addAll(hostgroup.validate());
        }
        try {
            cacheConfig();
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        if (!ids.isEmpty()) {
            try {
                rules(0);
            } catch (InvalidRulesException e) {
                problems.addAll(e.problems());
            }
        }
        return problems;
    }

    /**
     * This configuration publishing its cluster sections at start when they differ from the
     * cluster's ({@code zookeeper.publish_on_start}, {@code bin/shardgate run --publish-config}).
     */
    public RouterConfig withPublishOnStart() {
        return new RouterConfig(
                server, users, zookeeper.withPublishOnStart(), hostgroups, schemas, queryRules, cache, admin);
    }

    /** The {@code schemas} and {@code query_rules} sections as a validated rule version. */
    public RuleSnapshot rules(long version) throws InvalidRulesException {
        return RuleSnapshot.parse(
                version, hostgroups.stream().map(HostgroupConfig::id).toList(), schemas, queryRules);
    }

    /** The {@code cache} section (defaults when absent: the cache is off). */
    public CacheConfig cacheConfig() {
        return CacheConfig.parse(cache);
    }

    /**
     * The default hostgroup: the lowest id. Databases not listed under {@code schemas} live there,
     * and its writer is asked for the version clients are told.
     */
    public HostgroupConfig defaultHostgroup() {
        return hostgroups.stream()
                .min(java.util.Comparator.comparingInt(HostgroupConfig::id))
                .orElseThrow(() -> new ConfigException("no hostgroup"));
    }

    /** The hostgroup with this id; the id must exist. */
    public HostgroupConfig hostgroup(int id) {
        return hostgroups.stream()
                .filter(h -> h.id() == id)
                .findFirst()
                .orElseThrow(() -> new ConfigException("unknown hostgroup " + id));
    }
}
