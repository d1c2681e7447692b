package io.shardgate.router.control;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.router.config.HostgroupConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Literal backend passwords of the {@code hostgroups} section, hidden from the admin interfaces
 * (GET /api/config, the SQL admin's hostgroup tables) and put back when what they showed is
 * published again: a hostgroup whose {@code password} is still {@link #HIDDEN} keeps the password
 * the version in force has for the same id. References ({@code ${NAME}}, {@code password_file})
 * and empty passwords are shown as they are: they are not secrets.
 */
final class BackendPasswordMask {
    /** What the admin interfaces show in place of a literal backend password. */
    static final String HIDDEN = HostgroupConfig.HIDDEN_PASSWORD;

    private static final Pattern REFERENCE = Pattern.compile("\\$\\{[A-Za-z_][A-Za-z0-9_]*}");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();

    private BackendPasswordMask() {}

    /** {@code documents} with every literal backend password replaced by {@link #HIDDEN}. */
    static ConfigDocuments hide(ConfigDocuments documents) {
        return rewrite(documents, password -> isSecret(password) ? HIDDEN : password);
    }

    /**
     * {@code incoming} with each {@link #HIDDEN} password replaced by the one {@code current} has
     * for the hostgroup of the same id, or else for one with the same {@code user} and {@code writer}
     * (a hostgroup copied from a shown one). Left as it is when there is none, and validation
     * refuses the version.
     */
    static ConfigDocuments restore(ConfigDocuments incoming, ConfigDocuments current) {
        Map<Integer, String> byId = new HashMap<>();
        Map<String, String> byAccount = new HashMap<>();
        ArrayNode hostgroups = current == null ? null : hostgroups(current);
        if (hostgroups != null) {
            for (JsonNode hostgroup : hostgroups) {
                if (hostgroup.path("password").isTextual()) {
                    byId.put(
                            hostgroup.path("id").asInt(),
                            hostgroup.get("password").textValue());
                    byAccount.putIfAbsent(
                            account(hostgroup), hostgroup.get("password").textValue());
                }
            }
        }
        ArrayNode changed = hostgroups(incoming);
        if (changed == null) {
            return incoming;
        }
        boolean any = false;
        for (JsonNode hostgroup : changed) {
            String old = byId.getOrDefault(hostgroup.path("id").asInt(), byAccount.get(account(hostgroup)));
            if (hostgroup instanceof ObjectNode object
                    && HIDDEN.equals(object.path("password").textValue())
                    && old != null) {
                object.put("password", old);
                any = true;
            }
        }
        return any ? with(incoming, changed) : incoming;
    }

    private static String account(JsonNode hostgroup) {
        return hostgroup.path("user").asText() + "@" + hostgroup.path("writer").asText();
    }

    private static boolean isSecret(String password) {
        return !password.isEmpty() && !REFERENCE.matcher(password).matches();
    }

    private static ConfigDocuments rewrite(ConfigDocuments documents, Function<String, String> change) {
        ArrayNode hostgroups = hostgroups(documents);
        if (hostgroups == null) {
            return documents;
        }
        boolean any = false;
        for (JsonNode hostgroup : hostgroups) {
            if (hostgroup instanceof ObjectNode object
                    && object.path("password").isTextual()) {
                String password = object.get("password").textValue();
                String shown = change.apply(password);
                if (!shown.equals(password)) {
                    object.put("password", shown);
                    any = true;
                }
            }
        }
        return any ? with(documents, hostgroups) : documents;
    }

    /** The parsed section, or null when absent or unreadable (validation reports that). */
    private static ArrayNode hostgroups(ConfigDocuments documents) {
        String text = documents.get(ConfigDocuments.HOSTGROUPS);
        if (text == null) {
            return null;
        }
        try {
            return YAML.readTree(text) instanceof ArrayNode array ? array : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private static ConfigDocuments with(ConfigDocuments documents, ArrayNode hostgroups) {
        Map<String, String> sections = new TreeMap<>(documents.sections());
        try {
            sections.put(ConfigDocuments.HOSTGROUPS, JSON.writeValueAsString(hostgroups));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a configuration tree always serialises", e);
        }
        return ConfigDocuments.of(sections);
    }
}
