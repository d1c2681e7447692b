package io.shardgate.it.differential;

import io.shardgate.it.differential.DifferentialSchema.Placement;
import io.shardgate.it.differential.DifferentialSchema.Table;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * After a write: the table's final contents on the shards against the oracle's, and the placement
 * of every row of a sharded table (on the shard its key maps to under the router's {@code
 * RuleSnapshot}); a broadcast table must be whole on every shard, the unlisted one on hostgroup 10.
 */
final class TableCheck {
    private final DifferentialCluster cluster;

    TableCheck(DifferentialCluster cluster) {
        this.cluster = cluster;
    }

    List<AnswerComparison.Difference> check(Table t) throws SQLException {
        List<AnswerComparison.Difference> out = new ArrayList<>();
        List<List<String>> want = cluster.oracleRows(t);
        if (t.sharded()) {
            List<List<String>> all = new ArrayList<>();
            List<String> misplaced = new ArrayList<>();
            int key = t.columns().indexOf(t.column(t.key()));
            for (int hg : DifferentialCluster.HOSTGROUPS) {
                for (List<String> row : cluster.shardRows(hg, t)) {
                    all.add(row);
                    String k = row.get(key);
                    Object value = t.placement() == Placement.HASH_STRING ? k : (Object) Long.parseLong(k);
                    int expected = cluster.expectedHostgroup(t, value);
                    if (expected != hg) {
                        misplaced.add(row + " on hostgroup " + hg + ", its key maps to " + expected);
                    }
                }
            }
            String diff = multisetDifference(all, want);
            if (diff != null) {
                out.add(new AnswerComparison.Difference("table-contents", t.name() + " on the shards: " + diff));
            }
            if (!misplaced.isEmpty()) {
                out.add(new AnswerComparison.Difference("placement", t.name() + ": " + String.join("; ", misplaced)));
            }
        } else {
            for (int hg : DifferentialCluster.holders(t)) {
                String diff = multisetDifference(cluster.shardRows(hg, t), want);
                if (diff != null) {
                    out.add(new AnswerComparison.Difference(
                            "table-contents", t.name() + " on hostgroup " + hg + ": " + diff));
                }
            }
        }
        return out;
    }

    /** What {@code got} has that {@code want} lacks and vice versa, or null when they are equal multisets. */
    static String multisetDifference(List<List<String>> got, List<List<String>> want) {
        Map<List<String>, Integer> count = new HashMap<>();
        got.forEach(r -> count.merge(r, 1, Integer::sum));
        want.forEach(r -> count.merge(r, -1, Integer::sum));
        List<String> extra = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        count.forEach((row, n) -> {
            for (int i = 0; i < Math.abs(n); i++) {
                (n > 0 ? extra : missing).add(row.toString());
            }
        });
        if (extra.isEmpty() && missing.isEmpty()) {
            return null;
        }
        extra.sort(null);
        missing.sort(null);
        return "extra rows " + extra + ", missing rows " + missing;
    }
}
