package io.shardgate.move;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The rule change of a move of hash buckets: the {@code schemas} document with buckets {@code lo..hi}
 * of a table, and of every table bound to it (bound tables share one bucket map and move together),
 * mapped to the target hostgroup. Pure: the mover publishes the result as the next configuration
 * version at the cutover, after the routers' validation accepts it.
 */
public final class BucketMove {
    private static final ObjectMapper JSON = new ObjectMapper();

    private BucketMove() {}

    /**
     * Plans moving buckets {@code lo..hi} of {@code schema.table} to hostgroup {@code target}.
     *
     * @throws IllegalArgumentException with a message for the operator when it is not such a move
     */
    public static RuleChange plan(String schemasDocument, String schema, String table, int lo, int hi, int target) {
        JsonNode root = SchemasDocument.read(schemasDocument);
        ObjectNode schemaNode = SchemasDocument.find(root, schema, "schema");
        ObjectNode tableNode =
                SchemasDocument.find(schemaNode.path("tables"), table, "table " + table + " in schema " + schema);
        if (!"hash".equals(tableNode.path("strategy").asText())) {
            throw new IllegalArgumentException(schema + "." + table + " is not sharded by hash (strategy "
                    + tableNode.path("strategy").asText() + "): only hash buckets move by bucket ranges"
                    + ("table".equals(tableNode.path("strategy").asText())
                            ? "; move the whole table with \"buckets\": \"table\""
                            : ""));
        }
        int[] owner = owners(tableNode);
        if (lo < 0 || hi < lo || hi >= owner.length) {
            throw new IllegalArgumentException(
                    "buckets " + lo + "-" + hi + " are not a range of the table's buckets 0-" + (owner.length - 1));
        }
        TreeSet<Integer> sources = new TreeSet<>();
        for (int b = lo; b <= hi; b++) {
            if (owner[b] != target) {
                sources.add(owner[b]);
            }
        }
        if (sources.isEmpty()) {
            throw new IllegalArgumentException("buckets " + lo + "-" + hi + " of " + schema + "." + table
                    + " are on hostgroup " + target + " already");
        }
        int[] next = owner.clone();
        Arrays.fill(next, lo, hi + 1, target);
        List<String> moving = new ArrayList<>();
        for (ObjectNode t : boundTables(schemaNode, tableNode)) {
            if (!Arrays.equals(owners(t), owner)) {
                throw new IllegalArgumentException(
                        "tables " + tableNode.path("name").asText() + " and "
                                + t.path("name").asText() + " are bound but their bucket maps differ");
            }
            t.set("hostgroups", encode(next));
            moving.add(t.path("name").asText());
        }
        return new RuleChange(SchemasDocument.write(root), List.copyOf(moving), List.copyOf(sources));
    }

    /** The table and the tables of its binding group, the table first. */
    private static List<ObjectNode> boundTables(ObjectNode schemaNode, ObjectNode tableNode) {
        String name = tableNode.path("name").asText();
        List<ObjectNode> out = new ArrayList<>(List.of(tableNode));
        for (JsonNode group : schemaNode.path("binding_groups")) {
            boolean member = false;
            for (JsonNode m : group) {
                member |= m.asText().equalsIgnoreCase(name);
            }
            if (member) {
                for (JsonNode m : group) {
                    if (!m.asText().equalsIgnoreCase(name)) {
                        out.add(SchemasDocument.find(
                                schemaNode.path("tables"), m.asText(), "bound table " + m.asText()));
                    }
                }
            }
        }
        return out;
    }

    /** Bucket to hostgroup, from the table's {@code hostgroups: {10: "0-511", ...}}. */
    static int[] owners(ObjectNode tableNode) {
        int buckets = tableNode.path("buckets").asInt();
        int[] owner = new int[buckets];
        Arrays.fill(owner, Integer.MIN_VALUE);
        for (Iterator<Map.Entry<String, JsonNode>> it =
                        tableNode.path("hostgroups").fields();
                it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            int hostgroup = Integer.parseInt(e.getKey().trim());
            for (String part : e.getValue().asText().split(",")) {
                String p = part.trim();
                int dash = p.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? p : p.substring(0, dash).trim());
                int to =
                        dash < 0 ? from : Integer.parseInt(p.substring(dash + 1).trim());
                Arrays.fill(owner, from, to + 1, hostgroup);
            }
        }
        return owner;
    }

    /** {@code {10: "0-511", 20: "512-767,1000-1023"}}, hostgroups ascending. */
    static ObjectNode encode(int[] owner) {
        TreeMap<Integer, List<String>> ranges = new TreeMap<>();
        for (int b = 0; b < owner.length; ) {
            int end = b;
            while (end + 1 < owner.length && owner[end + 1] == owner[b]) {
                end++;
            }
            ranges.computeIfAbsent(owner[b], k -> new ArrayList<>())
                    .add(b == end ? Integer.toString(b) : b + "-" + end);
            b = end + 1;
        }
        ObjectNode out = JSON.createObjectNode();
        ranges.forEach((hostgroup, list) -> out.put(Integer.toString(hostgroup), String.join(",", list)));
        return out;
    }
}
