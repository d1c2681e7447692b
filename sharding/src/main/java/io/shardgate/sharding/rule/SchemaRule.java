package io.shardgate.sharding.rule;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A logical schema as clients see it: listed tables with their strategies, a default hostgroup for
 * every table not listed, and binding groups of tables sharded alike whose joins push down.
 * Table names are matched case-insensitively (two rules differing only in case are rejected).
 * {@code transactionMode} says how its writes on several shards commit.
 */
public record SchemaRule(
        String name,
        int defaultHostgroup,
        Map<String, TableRule> tables,
        List<List<String>> bindingGroups,
        TransactionMode transactionMode) {

    public SchemaRule {
        tables = Map.copyOf(tables);
        bindingGroups = bindingGroups.stream().map(List::copyOf).toList();
        java.util.Objects.requireNonNull(transactionMode, "transactionMode");
    }

    /** The listed rule for {@code table}, or {@code null}. */
    public TableRule listed(String table) {
        return tables.get(table.toLowerCase(Locale.ROOT));
    }

    /** The listed rule, or a {@code table} rule on the default hostgroup for an unlisted table. */
    public TableRule resolve(String table) {
        TableRule rule = listed(table);
        return rule != null ? rule : new TableRule(table, new SingleStrategy(defaultHostgroup));
    }

    /** Whether two listed tables are in one binding group (a table is always bound to itself). */
    public boolean bound(String a, String b) {
        if (a.equalsIgnoreCase(b)) {
            return true;
        }
        for (List<String> group : bindingGroups) {
            boolean hasA = group.stream().anyMatch(a::equalsIgnoreCase);
            boolean hasB = group.stream().anyMatch(b::equalsIgnoreCase);
            if (hasA && hasB) {
                return true;
            }
        }
        return false;
    }
}
