package io.shardgate.sharding.plan;

import io.shardgate.sharding.rule.Role;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.SchemaRule;
import io.shardgate.sharding.rule.TableRule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParseException;

/**
 * Plans a SELECT over {@code information_schema} tables that describe tables or databases
 * ({@code TABLES}, {@code COLUMNS}, {@code STATISTICS}, {@code SCHEMATA}...) so that a client sees
 * the logical schemas as one server would show them: every hostgroup is asked, and each reports
 * only what it <em>represents</em>, so a table held by several shards appears once.
 *
 * <p>A listed table is represented by its lowest hostgroup, an unlisted table of a logical schema
 * by the schema's default hostgroup, a logical schema (SCHEMATA) by its default hostgroup, and
 * every database not listed under {@code schemas} by the lowest hostgroup (where the router sends
 * it). Each hostgroup gets the client's statement with that condition AND-ed to its WHERE; the
 * results, disjoint by construction, merge like any scatter read (ORDER BY, LIMIT, DISTINCT...).
 * Figures of a sharded table (TABLE_ROWS, DATA_LENGTH, AUTO_INCREMENT...) are those of its
 * representative shard, not sums. One instance per statement.
 */
final class InformationSchemaPlanner {
    /** information_schema tables keyed by (TABLE_SCHEMA, TABLE_NAME). */
    private static final Set<String> TABLE_KEYED =
            Set.of("TABLES", "COLUMNS", "STATISTICS", "KEY_COLUMN_USAGE", "TABLE_CONSTRAINTS", "PARTITIONS", "VIEWS");

    private static final String SCHEMATA = "SCHEMATA";

    private final RuleSnapshot rules;
    private final String text;

    InformationSchemaPlanner(RuleSnapshot rules, String text) {
        this.rules = rules;
        this.text = text;
    }

    /**
     * The plan when {@code query} reads only describing information_schema tables and several
     * hostgroups hold logical schemas; {@code null} to plan it as any other statement.
     */
    Planned plan(SqlNode query, SqlOrderBy orderBy, Placement placement) {
        if (!(query instanceof SqlSelect select) || select.getFrom() == null) {
            return null;
        }
        Map<String, String> aliases = new LinkedHashMap<>(); // alias -> information_schema table
        if (!describingTables(select.getFrom(), aliases)) {
            return null;
        }
        Map<Integer, String> conditions = new TreeMap<>();
        for (int hg : rules.hostgroups()) {
            String condition = condition(hg, aliases);
            if (condition != null) {
                conditions.put(hg, condition);
            }
        }
        if (conditions.size() < 2) {
            return null; // one hostgroup holds everything: ask it as it is
        }
        Map<Integer, ShardSql> byHostgroup = new TreeMap<>();
        MergeSpec merge = null;
        for (Map.Entry<Integer, String> e : conditions.entrySet()) {
            String shardText = withCondition(e.getValue());
            if (shardText == null) {
                return null;
            }
            SqlNode node;
            try {
                node = Planner.parse(shardText.replace("(...)", "(?  )"));
            } catch (SqlParseException ex) {
                return null;
            }
            SqlOrderBy shardOrder = node instanceof SqlOrderBy o ? o : null;
            SqlSelect shardSelect = (SqlSelect) (shardOrder != null ? shardOrder.query : node);
            Route all = new Route.Broadcast(List.copyOf(conditions.keySet()), true);
            Planned planned = new MergePlanner(shardText, placement).plan(shardSelect, shardOrder, Role.READER, all);
            if (planned.route() instanceof Route.Refuse) {
                return planned;
            }
            ShardSql shardSql = planned.scatterSql();
            if (shardSql instanceof ShardSql.Verbatim) {
                // nothing to rewrite for the merge, but the condition is this hostgroup's own
                shardSql = new ShardSql.Template(new SqlTemplate(shardText).segments(0, shardText.length(), List.of()));
            }
            byHostgroup.put(e.getKey(), shardSql);
            merge = planned.merge();
        }
        ShardSql sql = new ShardSql.ByHostgroup(byHostgroup);
        return new Planned(
                StatementKind.SELECT,
                Role.READER,
                new Route.Broadcast(List.copyOf(conditions.keySet()), true),
                sql,
                sql,
                merge);
    }

    /**
     * The plan of a one-table information_schema SELECT that Calcite could not parse, from its
     * clauses found in the text (see {@link CatalogQueryText}); {@code null} when it does not qualify.
     */
    Planned planUnparsed() {
        CatalogQueryText query = CatalogQueryText.of(text);
        if (query == null || !(TABLE_KEYED.contains(query.table) || query.table.equals(SCHEMATA))) {
            return null;
        }
        Map<String, String> aliases = Map.of("", query.table);
        Map<Integer, ShardSql> byHostgroup = new TreeMap<>();
        for (int hg : rules.hostgroups()) {
            String condition = condition(hg, aliases);
            String shardText = condition == null ? null : withCondition(condition);
            if (shardText != null) {
                shardText = query.withWeights(shardText);
            }
            if (shardText != null) {
                byHostgroup.put(
                        hg,
                        new ShardSql.Template(new SqlTemplate(shardText).segments(0, shardText.length(), List.of())));
            }
        }
        if (byHostgroup.size() < 2) {
            return null;
        }
        ShardSql sql = new ShardSql.ByHostgroup(byHostgroup);
        return new Planned(
                StatementKind.SELECT,
                Role.READER,
                new Route.Broadcast(List.copyOf(byHostgroup.keySet()), true),
                sql,
                sql,
                query.merge());
    }

    /** Whether FROM has only information_schema tables this planner knows, collecting their aliases. */
    private static boolean describingTables(SqlNode from, Map<String, String> aliases) {
        if (from instanceof SqlJoin join) {
            return describingTables(join.getLeft(), aliases) && describingTables(join.getRight(), aliases);
        }
        SqlIdentifier id;
        String alias;
        if (from instanceof SqlIdentifier i) {
            id = i;
            alias = null;
        } else if (from.getKind() == SqlKind.AS && ((SqlBasicCall) from).operand(0) instanceof SqlIdentifier i) {
            id = i;
            alias = ((SqlIdentifier) ((SqlBasicCall) from).operand(1)).getSimple();
        } else {
            return false;
        }
        if (id.names.size() != 2 || !id.names.get(0).equalsIgnoreCase("information_schema")) {
            return false;
        }
        String table = id.names.get(1).toUpperCase(Locale.ROOT);
        if (!TABLE_KEYED.contains(table) && !table.equals(SCHEMATA)) {
            return false;
        }
        // columns are qualified by the alias, else by the table name as written
        aliases.put("`" + (alias != null ? alias : id.names.get(1)) + "`.", table);
        return true;
    }

    /** What hostgroup {@code hg} reports, as SQL over the aliases; null when it reports nothing. */
    private String condition(int hg, Map<String, String> aliases) {
        List<String> perTable = new ArrayList<>();
        for (Map.Entry<String, String> a : aliases.entrySet()) {
            String qualifier = aliases.size() == 1 ? "" : a.getKey();
            String c = a.getValue().equals(SCHEMATA)
                    ? schemaCondition(hg, qualifier + "SCHEMA_NAME")
                    : tableCondition(hg, qualifier + "TABLE_SCHEMA", qualifier + "TABLE_NAME");
            if (c == null) {
                return null;
            }
            perTable.add(c);
        }
        return String.join(" AND ", perTable);
    }

    private String tableCondition(int hg, String schemaColumn, String tableColumn) {
        List<String> parts = new ArrayList<>();
        for (SchemaRule schema : schemas()) {
            String tables = representedTables(schema, hg, tableColumn);
            if (tables != null) {
                String inSchema = schemaColumn + " = " + quote(schema.name());
                parts.add("(" + inSchema + (tables.isEmpty() ? "" : " AND " + tables) + ")");
            }
        }
        unlisted(hg, schemaColumn, parts);
        return parts.isEmpty() ? null : "(" + String.join(" OR ", parts) + ")";
    }

    /**
     * The tables of {@code schema} that hostgroup {@code hg} represents, as a condition on
     * {@code tableColumn}: empty when it represents every table it has (the default hostgroup of
     * a schema with no table elsewhere), null when it represents none.
     */
    static String representedTables(SchemaRule schema, int hg, String tableColumn) {
        List<String> here = new ArrayList<>();
        List<String> elsewhere = new ArrayList<>();
        for (TableRule table : new TreeMap<>(schema.tables()).values()) {
            int representative =
                    table.strategy().hostgroups().stream().min(Integer::compare).orElseThrow();
            (representative == hg ? here : elsewhere).add(quote(table.name()));
        }
        if (schema.defaultHostgroup() == hg) {
            return elsewhere.isEmpty() ? "" : tableColumn + " NOT IN (" + String.join(", ", elsewhere) + ")";
        }
        return here.isEmpty() ? null : tableColumn + " IN (" + String.join(", ", here) + ")";
    }

    private String schemaCondition(int hg, String nameColumn) {
        List<String> here = new ArrayList<>();
        for (SchemaRule schema : schemas()) {
            if (schema.defaultHostgroup() == hg) {
                here.add(quote(schema.name()));
            }
        }
        List<String> parts = new ArrayList<>();
        if (!here.isEmpty()) {
            parts.add(nameColumn + " IN (" + String.join(", ", here) + ")");
        }
        unlisted(hg, nameColumn, parts);
        return parts.isEmpty() ? null : "(" + String.join(" OR ", parts) + ")";
    }

    /** Databases not listed under schemas live on the lowest hostgroup: only it reports them. */
    private void unlisted(int hg, String schemaColumn, List<String> parts) {
        if (hg != rules.defaultHostgroup()) {
            return;
        }
        List<String> logical = rules.schemas().keySet().stream()
                .map(InformationSchemaPlanner::quote)
                .toList();
        parts.add(logical.isEmpty() ? "TRUE" : schemaColumn + " NOT IN (" + String.join(", ", logical) + ")");
    }

    /** The logical schemas by name: conditions are part of golden plans, so their order is fixed. */
    private List<SchemaRule> schemas() {
        return List.copyOf(new TreeMap<>(rules.schemas()).values());
    }

    /**
     * The normalized text with {@code condition} AND-ed to the top-level WHERE (or a WHERE added
     * before GROUP BY / HAVING / ORDER BY / LIMIT); null when the clauses cannot be found.
     */
    private String withCondition(String condition) {
        int where = topLevel(" WHERE ", 0);
        int end = text.length();
        for (String clause : List.of(" GROUP BY ", " HAVING ", " ORDER BY ", " LIMIT ", " WINDOW ")) {
            int at = topLevel(clause, where < 0 ? 0 : where);
            if (at >= 0 && at < end) {
                end = at;
            }
        }
        if (where < 0) {
            return text.substring(0, end) + " WHERE " + condition + text.substring(end);
        }
        int body = where + " WHERE ".length();
        if (body > end) {
            return null;
        }
        return text.substring(0, body) + "(" + text.substring(body, end) + ") AND " + condition + text.substring(end);
    }

    private int topLevel(String word, int from) {
        return new CatalogQueryText.Clauses(text).topLevel(word, from);
    }

    /** A string literal; names in rules are identifiers, but quote marks are escaped all the same. */
    private static String quote(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }
}
