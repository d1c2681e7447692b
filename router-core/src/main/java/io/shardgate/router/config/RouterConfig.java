package io.shardgate.router.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shardgate.cache.CacheConfig;
import io.shardgate.cache.InvalidCacheConfigException;
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
        JsonNode tree;
        try {
            tree = YAML.readTree(yaml);
        } catch (IOException e) {
            throw new ConfigException(source + ": not valid YAML: " + e.getMessage());
        }
        if (tree == null || tree.isMissingNode() || tree.isNull()) {
            throw new ConfigException(source + ": empty configuration");
        }
        return read(tree, source, true);
    }

    /**
     * Reads the cluster sections ({@code users}, {@code hostgroups}, {@code schemas}, {@code
     * query_rules}, {@code cache}) from a tree, as the control plane holds them; the result carries
     * default {@code server} and {@code zookeeper} sections and is not validated yet.
     *
     * @throws ConfigException listing every unknown key, or the first value that cannot be read
     */
    public static RouterConfig fromTree(JsonNode tree, String source) {
        return read(tree, source, false);
    }

    /**
     * Binds {@code tree}, reporting every problem at once: each unknown key with its path, the
     * accounts that fail their own checks, the first value of a wrong type, then (with {@code
     * validate}) every rule the bound configuration breaks.
     */
    private static RouterConfig read(JsonNode tree, String source, boolean validate) {
        List<String> problems = new ArrayList<>(new UnknownKeyScan(YAML).problems(tree, RouterConfig.class));
        Lenient lenient = new Lenient();
        RouterConfig config;
        try {
            config = YAML.readerFor(RouterConfig.class).withHandler(lenient).readValue(tree);
        } catch (JsonMappingException e) {
            problems.addAll(lenient.problems);
            problems.add(path(e) + ": " + e.getOriginalMessage());
            throw invalid(source, problems);
        } catch (IOException e) {
            throw new ConfigException(source + ": " + e.getMessage());
        }
        problems.addAll(lenient.problems);
        if (validate && config != null) {
            problems.addAll(config.validate());
        }
        if (!problems.isEmpty()) {
            throw invalid(source, problems);
        }
        return config;
    }

    private static ConfigException invalid(String source, List<String> problems) {
        return new ConfigException(
                source + " is invalid (" + problems.size() + (problems.size() == 1 ? " problem" : " problems") + ")",
                problems);
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

    /**
     * Lets the binding go on past what {@link UnknownKeyScan} reported already (unknown keys are
     * skipped) and past an account whose own checks fail ({@link UserConfig}): its problem is
     * recorded and {@link UserConfig#UNREADABLE} stands in, so the rest of the file is still read
     * and checked.
     */
    private static final class Lenient extends DeserializationProblemHandler {
        final List<String> problems = new ArrayList<>();

        @Override
        public boolean handleUnknownProperty(
                DeserializationContext ctxt,
                JsonParser p,
                JsonDeserializer<?> deserializer,
                Object beanOrClass,
                String propertyName)
                throws IOException {
            p.skipChildren();
            return true;
        }

        @Override
        public Object handleInstantiationProblem(
                DeserializationContext ctxt, Class<?> instClass, Object argument, Throwable t) {
            if (instClass != UserConfig.class) {
                return NOT_HANDLED;
            }
            Throwable cause = t;
            while (!(cause instanceof ConfigException) && cause.getCause() != null) {
                cause = cause.getCause();
            }
            String message = cause.getMessage();
            problems.add(message.startsWith("users") ? message : "users: " + message);
            return UserConfig.UNREADABLE;
        }
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
            if (user == UserConfig.UNREADABLE) {
                continue; // its problem is reported already
            }
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
        } catch (InvalidCacheConfigException e) {
            problems.addAll(e.problems());
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
