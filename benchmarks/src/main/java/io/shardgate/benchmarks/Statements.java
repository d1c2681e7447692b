package io.shardgate.benchmarks;

import java.util.StringJoiner;

/** The SQL texts the digest and planner benchmarks feed: sysbench's statements and two of ~1 KiB. */
final class Statements {
    /** sysbench oltp_point_select, as the client sends it in text-protocol mode. */
    static final String POINT_SELECT = "SELECT c FROM sbtest1 WHERE id=4242";

    private Statements() {}

    /** sysbench's point select on sbtest1 for one id. */
    static String pointSelect(int id) {
        return "SELECT c FROM sbtest1 WHERE id=" + id;
    }

    /** A point select on the hash-sharded orders table, routed by its key. */
    static String orderById(int customerId) {
        return "SELECT id, status, total FROM orders WHERE customer_id = " + customerId;
    }

    /** A five-row sysbench-style INSERT (oltp_insert's columns, c and pad at full length): ~1 KiB. */
    static String bulkInsert() {
        StringJoiner rows = new StringJoiner(", ", "INSERT INTO sbtest1 (id, k, c, pad) VALUES ", "");
        for (int row = 0; row < 5; row++) {
            int id = 100_001 + row;
            rows.add("(" + id + ", " + (49_000 + 37 * row) + ", '" + SysbenchText.c(id) + "', '" + SysbenchText.pad(id)
                    + "')");
        }
        return rows.toString();
    }

    /** A SELECT with a 150-value IN list on the primary key, as an ORM batch load writes it: ~1 KiB. */
    static String selectInList() {
        StringJoiner ids = new StringJoiner(",", "SELECT id, k, c, pad FROM sbtest1 WHERE id IN (", ") ORDER BY id");
        for (int i = 0; i < 150; i++) {
            ids.add(Integer.toString(10_000 + 61 * i));
        }
        return ids.toString();
    }
}
