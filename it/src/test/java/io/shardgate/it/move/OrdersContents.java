package io.shardgate.it.move;

import io.shardgate.sharding.rule.KeyHash;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntUnaryOperator;

/**
 * The rows of {@code orders} (id, amount, note) on each shard, against the rules and an unsharded
 * reference: which rows are on a shard the rules do not name, which are on several shards, and
 * which differ from the reference (missing, extra or changed).
 *
 * @param misplaced "row (bucket) on hostgroup h, owner o" for each row away from its owner
 * @param duplicated keys present on more than one shard
 * @param differences rows where the union of the shards and the reference differ
 * @param perHostgroup rows on each hostgroup
 */
record OrdersContents(
        List<String> misplaced, List<String> duplicated, List<String> differences, Map<Integer, Long> perHostgroup) {

    /** Reads every shard and the reference; {@code owner} maps a bucket to the hostgroup the rules name. */
    static OrdersContents compare(MoveShards shards, Connection reference, int buckets, IntUnaryOperator owner)
            throws SQLException {
        List<String> misplaced = new ArrayList<>();
        List<String> duplicated = new ArrayList<>();
        Map<Integer, Long> perHostgroup = new TreeMap<>();
        Map<Long, String> union = new TreeMap<>();
        for (int hostgroup : MoveShards.HOSTGROUPS) {
            try (Connection c = shards.direct(hostgroup)) {
                for (Map.Entry<Long, String> row : rows(c).entrySet()) {
                    long key = row.getKey();
                    int bucket = KeyHash.bucket(key, buckets);
                    if (owner.applyAsInt(bucket) != hostgroup) {
                        misplaced.add(key + " (bucket " + bucket + ") on hostgroup " + hostgroup + ", owner "
                                + owner.applyAsInt(bucket));
                    }
                    if (union.put(key, row.getValue()) != null) {
                        duplicated.add(key + " (again on hostgroup " + hostgroup + ")");
                    }
                    perHostgroup.merge(hostgroup, 1L, Long::sum);
                }
            }
        }
        Map<Long, String> expected = rows(reference);
        List<String> differences = new ArrayList<>();
        for (Map.Entry<Long, String> row : expected.entrySet()) {
            String got = union.get(row.getKey());
            if (!row.getValue().equals(got)) {
                differences.add("row " + row.getKey() + ": reference " + row.getValue() + ", shards " + got);
            }
        }
        for (Long key : union.keySet()) {
            if (!expected.containsKey(key)) {
                differences.add("row " + key + ": not in the reference, shards " + union.get(key));
            }
        }
        return new OrdersContents(misplaced, duplicated, differences, perHostgroup);
    }

    /** {@code orders} on {@code c}: id to "amount|note". */
    static Map<Long, String> rows(Connection c) throws SQLException {
        Map<Long, String> rows = new TreeMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, amount, note FROM orders")) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getInt(2) + "|" + rs.getString(3));
            }
        }
        return rows;
    }

    /** The first ten of {@code items}, for assertion messages. */
    static List<String> first(List<String> items) {
        return items.subList(0, Math.min(10, items.size()));
    }
}
