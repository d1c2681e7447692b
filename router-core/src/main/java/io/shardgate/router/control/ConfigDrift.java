package io.shardgate.router.control;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.router.config.RouterConfig;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * How the YAML file's cluster sections ({@code hostgroups}, {@code users}, {@code schemas}, {@code
 * query_rules}, {@code cache}) differ from a version stored in ZooKeeper: after the first start the
 * stored version wins, so each difference is an edit of the file the router ignores. Pure: both
 * sides are brought to the form the router seeds ({@link ClusterDocuments#of}, so defaults, key
 * order, JSON or YAML and plaintext passwords versus their hashes do not count) and compared as
 * trees, section by section and within a section by element: hostgroups by {@code id}, users and
 * schemas by {@code name}, query rules by position, {@code cache} by key.
 */
public final class ConfigDrift {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** The key naming an element of a list section; absent: elements are named by position. */
    private static final Map<String, String> ELEMENT_KEYS =
            Map.of(ConfigDocuments.HOSTGROUPS, "id", ConfigDocuments.USERS, "name", ConfigDocuments.SCHEMAS, "name");

    private ConfigDrift() {}

    /**
     * One line per section that differs, sorted by section, e.g. {@code hostgroups (20 changed, 30
     * only in the file)}; empty when the file and the stored version agree.
     */
    public static List<String> between(RouterConfig file, ConfigDocuments stored) {
        ClusterDocuments.Reading reading = ClusterDocuments.read(file, stored);
        ConfigDocuments normalised = reading.config() != null ? ClusterDocuments.of(reading.config()) : stored;
        return between(ClusterDocuments.of(file), normalised);
    }

    /** {@link #between(RouterConfig, ConfigDocuments)} for documents already in the same form. */
    static List<String> between(ConfigDocuments file, ConfigDocuments stored) {
        TreeSet<String> sections = new TreeSet<>(file.sections().keySet());
        sections.addAll(stored.sections().keySet());
        List<String> out = new ArrayList<>();
        for (String section : sections) {
            JsonNode mine = tree(file.get(section));
            JsonNode theirs = tree(stored.get(section));
            if (mine.equals(theirs)) {
                continue;
            }
            List<String> details = details(section, mine, theirs);
            out.add(details.isEmpty() ? section : section + " (" + String.join(", ", details) + ")");
        }
        return out;
    }

    private static List<String> details(String section, JsonNode file, JsonNode stored) {
        if (file.isArray() && stored.isArray()) {
            return elements(ELEMENT_KEYS.get(section), file, stored);
        }
        if (file.isObject() && stored.isObject()) {
            TreeSet<String> keys = new TreeSet<>();
            file.fieldNames().forEachRemaining(keys::add);
            stored.fieldNames().forEachRemaining(keys::add);
            List<String> changed = new ArrayList<>();
            for (String key : keys) {
                if (!file.path(key).equals(stored.path(key))) {
                    changed.add(key);
                }
            }
            return changed.isEmpty() ? List.of() : List.of(String.join(", ", changed) + " changed");
        }
        if (file.isMissingNode()) {
            return List.of("only in ZooKeeper");
        }
        return List.of(stored.isMissingNode() ? "only in the file" : "changed");
    }

    /** {@code 20 changed}, {@code 30 only in the file}, {@code 'report' only in ZooKeeper}. */
    private static List<String> elements(String key, JsonNode file, JsonNode stored) {
        Map<String, JsonNode> mine = byName(key, file);
        Map<String, JsonNode> theirs = byName(key, stored);
        List<String> changed = new ArrayList<>();
        List<String> onlyFile = new ArrayList<>();
        List<String> onlyStored = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : mine.entrySet()) {
            JsonNode other = theirs.get(e.getKey());
            if (other == null) {
                onlyFile.add(e.getKey());
            } else if (!other.equals(e.getValue())) {
                changed.add(e.getKey());
            }
        }
        for (String name : theirs.keySet()) {
            if (!mine.containsKey(name)) {
                onlyStored.add(name);
            }
        }
        List<String> out = new ArrayList<>();
        if (!changed.isEmpty()) {
            out.add(String.join(" ", changed) + " changed");
        }
        if (!onlyFile.isEmpty()) {
            out.add(String.join(" ", onlyFile) + " only in the file");
        }
        if (!onlyStored.isEmpty()) {
            out.add(String.join(" ", onlyStored) + " only in ZooKeeper");
        }
        if (out.isEmpty()) {
            out.add("order changed");
        }
        return out;
    }

    /** Elements by their {@code key} value (text values quoted), or {@code #1, #2...} by position. */
    private static Map<String, JsonNode> byName(String key, JsonNode list) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        int position = 0;
        for (Iterator<JsonNode> it = list.elements(); it.hasNext(); ) {
            JsonNode element = it.next();
            position++;
            JsonNode name = key == null ? null : element.get(key);
            String label = name == null || name.isContainerNode()
                    ? "#" + position
                    : name.isTextual() ? "'" + name.textValue() + "'" : name.asText();
            out.putIfAbsent(label, element);
        }
        return out;
    }

    /** The document's tree; a missing, empty or null document is a missing node. */
    private static JsonNode tree(String document) {
        if (document == null) {
            return MissingNode.getInstance();
        }
        try {
            JsonNode node = YAML.readTree(document);
            return node == null || node.isNull() ? MissingNode.getInstance() : node;
        } catch (JsonProcessingException e) {
            // a stored document that does not parse differs from any file; validation says why
            return YAML.getNodeFactory().textNode(document);
        }
    }
}
