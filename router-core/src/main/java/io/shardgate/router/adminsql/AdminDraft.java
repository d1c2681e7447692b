package io.shardgate.router.adminsql;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.protocol.auth.StoredCredential;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The configuration being edited through the SQL admin endpoint: a copy of one version's sections
 * as JSON lists, changed by INSERT/UPDATE/DELETE and published whole by {@code LOAD ... TO
 * RUNTIME}. One per router, shared by its admin connections (as ProxySQL's memory layer); an
 * unchanged draft follows the version in force. Not thread-safe: {@link AdminCatalog} serialises.
 */
final class AdminDraft {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final Map<AdminTable, ArrayNode> sections = new EnumMap<>(AdminTable.class);
    private ConfigVersion base;
    private boolean changed;

    /** Starts over from {@code version} (null: nothing loaded yet). */
    void reset(ConfigVersion version) {
        base = version;
        changed = false;
        sections.clear();
        for (AdminTable table : AdminTable.values()) {
            sections.put(table, version == null ? JSON.createArrayNode() : list(version.documents(), table));
        }
    }

    /** Follows {@code current} while nothing was edited. */
    void refresh(ConfigVersion current) {
        if (!changed && current != null && (base == null || current.number() > base.number())) {
            reset(current);
        }
    }

    long basedOn() {
        return base == null ? 0 : base.number();
    }

    boolean changed() {
        return changed;
    }

    /** A section of {@code documents} as rows; a section that is not a list shows as no rows. */
    static ArrayNode list(ConfigDocuments documents, AdminTable table) {
        String text = documents.get(table.section());
        if (text == null) {
            return JSON.createArrayNode();
        }
        try {
            JsonNode node = YAML.readTree(text);
            return node instanceof ArrayNode array ? array.deepCopy() : JSON.createArrayNode();
        } catch (JsonProcessingException e) {
            return JSON.createArrayNode();
        }
    }

    ArrayNode rows(AdminTable table) {
        return sections.get(table);
    }

    /** Adds rows; {@code columns} null means the table's own column order. */
    long insert(AdminTable table, List<String> columns, List<List<Object>> rows) {
        List<String> names = columns != null ? columns : table.columns();
        ArrayNode list = sections.get(table);
        for (List<Object> row : rows) {
            if (row.size() != names.size()) {
                throw new AdminSqlException(
                        1136, "Column count doesn't match value count at row " + (rows.indexOf(row) + 1));
            }
            ObjectNode element = JSON.createObjectNode();
            Long position = null;
            for (int i = 0; i < names.size(); i++) {
                if (names.get(i).equals(AdminTable.RULE_ID) && table == AdminTable.QUERY_RULES) {
                    position = row.get(i) instanceof Long l ? l : null;
                } else {
                    set(table, element, names.get(i), row.get(i));
                }
            }
            if (position != null && position >= 1 && position <= list.size()) {
                list.insert((int) (position - 1), element);
            } else {
                list.add(element);
            }
        }
        changed = true;
        return rows.size();
    }

    long update(AdminTable table, Map<String, Object> assignments, Map<String, Object> where) {
        if (assignments.containsKey(AdminTable.RULE_ID)) {
            throw new AdminSqlException(1105, "rule_id is the rule's position: DELETE and INSERT it where it belongs");
        }
        long count = 0;
        ArrayNode list = sections.get(table);
        for (int i = 0; i < list.size(); i++) {
            if (matches(table, list.get(i), i, where)) {
                for (Map.Entry<String, Object> a : assignments.entrySet()) {
                    set(table, (ObjectNode) list.get(i), a.getKey(), a.getValue());
                }
                count++;
            }
        }
        changed |= count > 0;
        return count;
    }

    long delete(AdminTable table, Map<String, Object> where) {
        long count = 0;
        ArrayNode list = sections.get(table);
        for (int i = list.size() - 1; i >= 0; i--) {
            if (matches(table, list.get(i), i, where)) {
                list.remove(i);
                count++;
            }
        }
        changed |= count > 0;
        return count;
    }

    /** The draft as documents; sections it does not edit (cache) come from its base version. */
    ConfigDocuments documents() {
        Map<String, String> out = new TreeMap<>();
        if (base != null) {
            out.putAll(base.documents().sections());
        }
        sections.forEach((table, list) -> out.put(table.section(), list.toString()));
        return ConfigDocuments.of(out);
    }

    /** Every column a table shows: its known ones, then any other key its rows have. */
    static List<String> columns(AdminTable table, ArrayNode rows) {
        LinkedHashSet<String> names = new LinkedHashSet<>(table.columns());
        for (JsonNode row : rows) {
            row.fieldNames().forEachRemaining(names::add);
        }
        return new ArrayList<>(names);
    }

    /** The value a row shows in {@code column}: text, a number, JSON text, or null. */
    static Object cell(AdminTable table, JsonNode row, int index, String column) {
        if (table == AdminTable.QUERY_RULES && column.equals(AdminTable.RULE_ID)) {
            return (long) index + 1;
        }
        JsonNode v = row.get(column);
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isIntegralNumber()) {
            return v.asLong();
        }
        return v.isValueNode() ? v.asText() : v.toString();
    }

    private static boolean matches(AdminTable table, JsonNode row, int index, Map<String, Object> where) {
        for (Map.Entry<String, Object> condition : where.entrySet()) {
            Object actual = cell(table, row, index, condition.getKey());
            Object wanted = condition.getValue();
            if (actual == null || wanted == null || !String.valueOf(actual).equals(String.valueOf(wanted))) {
                return false;
            }
        }
        return true;
    }

    private static void set(AdminTable table, ObjectNode element, String column, Object value) {
        if (table == AdminTable.USERS && column.equals("password")) {
            // plaintext never stays in the draft: it becomes the hashes a router verifies against
            element.put(
                    "password_hash",
                    StoredCredential.fromPassword(value == null ? "" : value.toString())
                            .render());
            return;
        }
        if (value == null) {
            element.remove(column);
        } else if (AdminTable.BOOLEAN.contains(column)) {
            String text = value.toString().toLowerCase(java.util.Locale.ROOT);
            if (!text.equals("1") && !text.equals("0") && !text.equals("true") && !text.equals("false")) {
                throw new AdminSqlException(
                        1366, "Incorrect value '" + value + "' for column '" + column + "' (0 or 1)");
            }
            element.set(column, BooleanNode.valueOf(text.equals("1") || text.equals("true")));
        } else if (AdminTable.STRUCTURED.contains(column) && value instanceof String text) {
            try {
                element.set(column, YAML.readTree(text));
            } catch (JsonProcessingException e) {
                throw new AdminSqlException(
                        1366, "Incorrect value for column '" + column + "': not JSON: " + e.getOriginalMessage());
            }
        } else if (value instanceof Long l) {
            element.put(column, l);
        } else if (value instanceof Double d) {
            element.put(column, d);
        } else {
            element.set(column, JsonNodeFactory.instance.textNode(value.toString()));
        }
    }
}
