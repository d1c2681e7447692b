package io.shardgate.sharding.columns;

import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.SchemaRule;
import io.shardgate.sharding.rule.TableRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Builds a {@link ColumnCatalog} from what each hostgroup reported: a listed table is {@link
 * TableColumns.Known} only when every hostgroup its rule places it on reported the same column list
 * (names, order and collations); otherwise it is {@link TableColumns.Disagreeing} with the differences named, or
 * {@link TableColumns.Untracked} when a hostgroup did not answer. A pure function.
 */
public final class ColumnAgreement {
    private ColumnAgreement() {}

    /**
     * @param reports per hostgroup that answered: its tables' column lists by {@link
     *     ColumnCatalog#key}; a hostgroup missing from the map did not answer
     */
    public static ColumnCatalog catalog(
            long version, RuleSnapshot rules, Map<Integer, Map<String, List<TrackedColumn>>> reports) {
        Map<String, TableColumns> tables = new HashMap<>();
        for (SchemaRule schema : rules.schemas().values()) {
            for (TableRule table : schema.tables().values()) {
                tables.put(ColumnCatalog.key(schema.name(), table.name()), agreement(schema.name(), table, reports));
            }
        }
        return new ColumnCatalog(version, tables);
    }

    static TableColumns agreement(
            String schema, TableRule table, Map<Integer, Map<String, List<TrackedColumn>>> reports) {
        String key = ColumnCatalog.key(schema, table.name());
        List<TrackedColumn> agreed = null;
        int agreedOn = -1;
        List<String> differences = new ArrayList<>();
        for (int hostgroup : table.strategy().hostgroups()) {
            Map<String, List<TrackedColumn>> report = reports.get(hostgroup);
            if (report == null) {
                return new TableColumns.Untracked(
                        "hostgroup " + hostgroup + " did not report the columns of " + schema + "." + table.name());
            }
            List<TrackedColumn> columns = report.get(key);
            if (agreedOn < 0) {
                agreed = columns;
                agreedOn = hostgroup;
            } else if (!Objects.equals(agreed, columns)) {
                // names when they differ, else the collations that do
                boolean collations =
                        agreed != null && columns != null && names(agreed).equals(names(columns));
                differences.add("hostgroup " + agreedOn + " has " + describe(agreed, collations) + ", hostgroup "
                        + hostgroup + " has " + describe(columns, collations));
            }
        }
        if (!differences.isEmpty()) {
            return new TableColumns.Disagreeing(
                    "the shards of " + schema + "." + table.name() + " differ: " + String.join("; ", differences));
        }
        if (agreed == null) {
            return new TableColumns.Untracked("table " + schema + "." + table.name() + " does not exist on its shards");
        }
        return TableColumns.Known.of(agreed);
    }

    private static String describe(List<TrackedColumn> columns, boolean collations) {
        return columns == null
                ? "no such table"
                : "("
                        + String.join(
                                ", ",
                                collations
                                        ? columns.stream()
                                                .map(TrackedColumn::toString)
                                                .toList()
                                        : names(columns))
                        + ")";
    }

    private static List<String> names(List<TrackedColumn> columns) {
        return columns.stream().map(TrackedColumn::name).toList();
    }
}
