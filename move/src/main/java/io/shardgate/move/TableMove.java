package io.shardgate.move;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The rule change of a move of a whole table of a {@code table} rule (one hostgroup holds it): the
 * {@code schemas} document with the table's {@code hostgroup} set to the target. Pure; the reverse
 * of a finished table move is the same change back to its source.
 */
public final class TableMove {
    /** The request's {@code buckets} value that asks for a whole-table move. */
    public static final String WHOLE_TABLE = "table";

    private TableMove() {}

    /**
     * Plans moving {@code schema.table} to hostgroup {@code target}.
     *
     * @throws IllegalArgumentException with a message for the operator when it is not such a move
     *     (the message says "already" when the table is on the target now)
     */
    public static RuleChange plan(String schemasDocument, String schema, String table, int target) {
        JsonNode root = SchemasDocument.read(schemasDocument);
        ObjectNode schemaNode = SchemasDocument.find(root, schema, "schema");
        ObjectNode tableNode =
                SchemasDocument.find(schemaNode.path("tables"), table, "table " + table + " in schema " + schema);
        String strategy = tableNode.path("strategy").asText();
        if (!"table".equals(strategy)) {
            throw new IllegalArgumentException(schema + "." + table + " has strategy " + strategy
                    + ": only a table of a 'table' rule (one hostgroup) moves whole; move hash buckets with"
                    + " \"buckets\": \"lo-hi\"");
        }
        if (!tableNode.path("hostgroup").canConvertToInt()) {
            throw new IllegalArgumentException(schema + "." + table + " names no hostgroup in the running rules");
        }
        int source = tableNode.path("hostgroup").asInt();
        if (source == target) {
            throw new IllegalArgumentException(schema + "." + table + " is on hostgroup " + target + " already");
        }
        tableNode.put("hostgroup", target);
        return new RuleChange(
                SchemasDocument.write(root), List.of(tableNode.path("name").asText()), List.of(source));
    }
}
