package io.shardgate.admin.store;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The documents of one cluster configuration, by section ({@code hostgroups}, {@code users},
 * {@code schemas}, {@code query_rules}, {@code cache}, ...), each a UTF-8 text (JSON or YAML).
 *
 * <p>The store does not interpret the text; a {@link ConfigValidator} does. Users are stored as the
 * caller hands them over: the caller hashes passwords before they get here. Immutable.
 *
 * @param sections section name to document text, sorted by name
 */
public record ConfigDocuments(SortedMap<String, String> sections) {
    public static final String HOSTGROUPS = "hostgroups";
    public static final String USERS = "users";
    public static final String SCHEMAS = "schemas";
    public static final String QUERY_RULES = "query_rules";
    public static final String CACHE = "cache";

    /** A section name is also a ZooKeeper node name, so it stays plain. */
    private static final Pattern SECTION_NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    public ConfigDocuments {
        TreeMap<String, String> copy = new TreeMap<>();
        for (Map.Entry<String, String> e : sections.entrySet()) {
            String problem = sectionNameProblem(e.getKey());
            if (problem != null) {
                throw new IllegalArgumentException(problem);
            }
            if (e.getValue() == null) {
                throw new IllegalArgumentException("section " + e.getKey() + " has no document");
            }
            copy.put(e.getKey(), e.getValue());
        }
        sections = Collections.unmodifiableSortedMap(copy);
    }

    /** Documents from any map of section name to text; the map is copied. */
    public static ConfigDocuments of(Map<String, String> sections) {
        return new ConfigDocuments(new TreeMap<>(sections));
    }

    /** The text of a section, or null when the configuration has no such section. */
    public String get(String section) {
        return sections.get(section);
    }

    /** Why {@code name} cannot be a section name, or null when it can. */
    static String sectionNameProblem(String name) {
        if (name == null || !SECTION_NAME.matcher(name).matches()) {
            return "section name '" + name + "' is not [a-z][a-z0-9_]* (at most 64 characters)";
        }
        return null;
    }
}
