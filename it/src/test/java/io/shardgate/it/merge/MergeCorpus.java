package io.shardgate.it.merge;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The SELECTs of the differential merge test over table {@code t}: hand-written cases for every
 * merge feature plus cases generated from a seed (sorted projections with LIMIT, aggregates, GROUP
 * BY, DISTINCT). {@code ordered} marks statements whose ORDER BY makes the row order unique, so
 * order is compared; other results compare as multisets.
 */
final class MergeCorpus {
    record Query(String sql, boolean ordered) {}

    private static final String[] COLUMNS = {"id", "grp", "s", "b", "d", "f", "dt", "ts", "big", "u"};
    private static final String[] NUMERIC = {"grp", "d", "f", "big", "u"};
    private static final String[] KEYS = {"grp", "s", "b", "dt", "d"};
    private static final String[] WHERE = {
        "",
        "",
        "",
        " WHERE grp > 0",
        " WHERE d < 0",
        " WHERE s IS NOT NULL",
        " WHERE f >= 0",
        " WHERE dt >= '2024-01-05'",
        " WHERE grp IS NULL",
        " WHERE b = 'x'",
        " WHERE big > 0 AND grp < 4"
    };

    private MergeCorpus() {}

    static List<Query> handWritten() {
        List<Query> q = new ArrayList<>();
        // ORDER BY, k-way merge, hidden sort keys, LIMIT pushed down as offset+count
        q.add(ordered("SELECT id, s FROM t ORDER BY id"));
        q.add(ordered("SELECT id, s FROM t ORDER BY id DESC LIMIT 5"));
        q.add(ordered("SELECT id, s FROM t ORDER BY id LIMIT 7, 5"));
        q.add(ordered("SELECT id, s FROM t ORDER BY id LIMIT 295, 10"));
        q.add(ordered("SELECT id FROM t ORDER BY id LIMIT 0"));
        q.add(ordered("SELECT s FROM t ORDER BY grp, id"));
        q.add(ordered("SELECT s, d FROM t ORDER BY d DESC, id LIMIT 10"));
        q.add(ordered("SELECT id, s FROM t ORDER BY s, id"));
        q.add(ordered("SELECT id, b FROM t ORDER BY b DESC, id"));
        q.add(ordered("SELECT id, dt, ts FROM t ORDER BY dt DESC, ts, id"));
        q.add(ordered("SELECT id, f FROM t ORDER BY f, id LIMIT 20"));
        q.add(ordered("SELECT * FROM t ORDER BY id"));
        q.add(ordered("SELECT * FROM t ORDER BY u DESC, id LIMIT 3, 4"));
        q.add(ordered("SELECT id AS k, s AS name FROM t ORDER BY k DESC LIMIT 4"));
        q.add(unordered("SELECT id, s, d FROM t WHERE grp = 2"));
        // aggregates without GROUP BY, over rows and over no rows
        q.add(unordered("SELECT COUNT(*), COUNT(s), COUNT(grp) FROM t"));
        q.add(unordered("SELECT SUM(grp), SUM(d), SUM(f), SUM(big), SUM(u) FROM t"));
        q.add(unordered("SELECT MIN(grp), MAX(grp), MIN(d), MAX(d), MIN(f), MAX(f) FROM t"));
        q.add(unordered("SELECT MIN(s), MAX(s), MIN(b), MAX(b), MIN(dt), MAX(ts) FROM t"));
        q.add(unordered("SELECT AVG(grp), AVG(d), AVG(f), AVG(big), AVG(u) FROM t"));
        q.add(unordered("SELECT AVG(d) AS avg_d, COUNT(*) AS n FROM t WHERE grp > 2"));
        q.add(unordered("SELECT COUNT(*), SUM(d), AVG(d), MIN(s), MAX(f) FROM t WHERE grp > 100"));
        // GROUP BY, with and without aggregates, hidden keys, ORDER BY and LIMIT after the merge
        q.add(unordered("SELECT grp, COUNT(*) FROM t GROUP BY grp"));
        q.add(unordered("SELECT s, COUNT(*), SUM(d) FROM t GROUP BY s"));
        q.add(unordered("SELECT b, COUNT(*), MIN(id) FROM t GROUP BY b"));
        q.add(unordered("SELECT COUNT(*), AVG(f) FROM t GROUP BY grp"));
        q.add(unordered("SELECT grp FROM t GROUP BY grp"));
        q.add(unordered("SELECT grp, s, COUNT(*) FROM t GROUP BY grp, s"));
        q.add(unordered("SELECT dt, MAX(ts), AVG(big) FROM t GROUP BY dt"));
        q.add(ordered("SELECT grp, COUNT(*) FROM t GROUP BY grp ORDER BY grp DESC"));
        q.add(ordered("SELECT grp, COUNT(*) AS n FROM t GROUP BY grp ORDER BY n DESC, grp LIMIT 3"));
        q.add(ordered("SELECT s, AVG(d) FROM t GROUP BY s ORDER BY s LIMIT 2, 3"));
        q.add(ordered("SELECT d, COUNT(*) FROM t GROUP BY d ORDER BY d LIMIT 5"));
        // DISTINCT
        q.add(unordered("SELECT DISTINCT s FROM t"));
        q.add(unordered("SELECT DISTINCT b FROM t"));
        q.add(unordered("SELECT DISTINCT grp, s FROM t"));
        q.add(ordered("SELECT DISTINCT grp FROM t ORDER BY grp"));
        q.add(ordered("SELECT DISTINCT d FROM t ORDER BY d DESC LIMIT 3"));
        q.add(ordered("SELECT DISTINCT dt FROM t ORDER BY dt LIMIT 2, 4"));
        // ORDER BY a column position: the literal decides per execution; a string orders nothing
        q.add(ordered("SELECT id, s FROM t ORDER BY 1 DESC LIMIT 6"));
        q.add(ordered("SELECT s, id FROM t ORDER BY 1, 2 LIMIT 3, 8"));
        q.add(ordered("SELECT grp, COUNT(*) FROM t GROUP BY grp ORDER BY 2 DESC, 1"));
        q.add(ordered("SELECT DISTINCT d FROM t ORDER BY 1 LIMIT 5"));
        q.add(ordered("SELECT * FROM t ORDER BY 4, 1 LIMIT 10"));
        q.add(unordered("SELECT id FROM t WHERE grp = 1 ORDER BY 'x'"));
        q.add(unordered("SELECT id, s FROM t ORDER BY 3"));
        // COUNT/SUM/AVG(DISTINCT): the shards group by the argument too; distinct as the collation says
        q.add(unordered("SELECT COUNT(DISTINCT s) FROM t"));
        q.add(unordered("SELECT COUNT(DISTINCT b), COUNT(b) FROM t"));
        q.add(unordered("SELECT COUNT(DISTINCT id) FROM t"));
        q.add(unordered("SELECT grp, COUNT(DISTINCT s), COUNT(*) FROM t GROUP BY grp"));
        q.add(unordered("SELECT SUM(DISTINCT grp), AVG(DISTINCT grp), COUNT(DISTINCT grp) FROM t"));
        q.add(unordered("SELECT SUM(DISTINCT d), AVG(DISTINCT d), MAX(d) FROM t WHERE grp > 0"));
        q.add(unordered("SELECT s, AVG(DISTINCT f), SUM(DISTINCT f) FROM t GROUP BY s"));
        q.add(ordered("SELECT grp, COUNT(DISTINCT dt), MIN(dt) FROM t GROUP BY grp ORDER BY grp"));
        q.add(unordered("SELECT COUNT(DISTINCT s), SUM(DISTINCT s) FROM t WHERE grp > 100"));
        q.add(ordered("SELECT grp, COUNT(DISTINCT u) AS n FROM t GROUP BY grp ORDER BY n DESC, grp LIMIT 4"));
        q.add(unordered("SELECT b, COUNT(DISTINCT s), AVG(DISTINCT s) FROM t GROUP BY b"));
        // HAVING on the merged groups: literals of every kind, NULLs, collations, hidden aggregates
        q.add(unordered("SELECT grp, COUNT(*) FROM t GROUP BY grp HAVING COUNT(*) > 25"));
        q.add(unordered("SELECT s, SUM(d) FROM t GROUP BY s HAVING SUM(d) < 0"));
        q.add(unordered("SELECT grp FROM t GROUP BY grp HAVING AVG(f) >= 0 AND MAX(id) > 100"));
        q.add(ordered("SELECT grp, COUNT(*) AS n FROM t GROUP BY grp HAVING n BETWEEN 20 AND 40 ORDER BY n DESC, grp"));
        q.add(unordered("SELECT s, COUNT(*) FROM t GROUP BY s HAVING s = 'apple'"));
        q.add(unordered("SELECT b, COUNT(*) FROM t GROUP BY b HAVING b <> 'x'"));
        q.add(ordered("SELECT dt, COUNT(*) FROM t GROUP BY dt HAVING dt >= '2024-01-10' ORDER BY dt"));
        q.add(unordered("SELECT grp, MIN(s) FROM t GROUP BY grp HAVING MIN(s) IS NOT NULL OR grp IS NULL"));
        q.add(unordered("SELECT COUNT(*) FROM t HAVING COUNT(*) > 1000"));
        q.add(unordered("SELECT COUNT(*), SUM(u) FROM t WHERE grp > 100 HAVING SUM(u) IS NULL"));
        q.add(unordered("SELECT grp, COUNT(DISTINCT s) FROM t GROUP BY grp HAVING COUNT(DISTINCT s) > 5"));
        q.add(ordered("SELECT grp, SUM(big) FROM t GROUP BY grp HAVING NOT SUM(big) > 0 ORDER BY grp LIMIT 3"));
        q.add(unordered("SELECT d, COUNT(*) FROM t GROUP BY d HAVING d > 100.5"));
        q.add(unordered("SELECT grp, MAX(f) FROM t GROUP BY grp HAVING MAX(f) > 5.5 OR MIN(f) < -9.75"));
        q.add(unordered("SELECT s, COUNT(*) FROM t GROUP BY s HAVING MAX(ts) < '2024-01-02 00:00:00'"));
        q.add(ordered("SELECT grp % 3 AS m, COUNT(*), SUM(d) FROM t GROUP BY m HAVING COUNT(*) > 10 ORDER BY 1"));
        // subqueries over items (bound to t on its key) run on each shard
        q.add(ordered("SELECT id, s FROM t WHERE id IN (SELECT t_id FROM items WHERE qty > 10) ORDER BY id"));
        q.add(unordered("SELECT id FROM t WHERE id NOT IN (SELECT t_id FROM items)"));
        q.add(unordered(
                "SELECT COUNT(*) FROM t WHERE id IN (SELECT t_id FROM items GROUP BY t_id HAVING SUM(qty) > 15)"));
        q.add(ordered(
                "SELECT x.id, x.grp FROM t x WHERE EXISTS (SELECT 1 FROM items i WHERE i.t_id = x.id AND i.qty IS NULL)"
                        + " ORDER BY x.grp, x.id LIMIT 20"));
        q.add(unordered(
                "SELECT x.id, (SELECT SUM(i.qty) FROM items i WHERE i.t_id = x.id) AS q FROM t x WHERE x.grp = 1"));
        q.add(unordered("SELECT grp, COUNT(*) FROM t x WHERE NOT EXISTS (SELECT 1 FROM items i WHERE x.id = i.t_id)"
                + " GROUP BY grp"));
        // every shard fails alike: the first ERR is the answer
        q.add(unordered("SELECT nosuch FROM t ORDER BY id"));
        return q;
    }

    static List<Query> generated(long seed, int count) {
        Random r = new Random(seed);
        List<Query> q = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            switch (i % 4) {
                case 0 -> q.add(sortedProjection(r));
                case 1 -> q.add(aggregates(r));
                case 2 -> q.add(grouped(r));
                default -> q.add(distinct(r));
            }
        }
        return q;
    }

    /** Aggregates over the distinct values of one column, with and without GROUP BY. */
    static List<Query> generatedDistinctAggregates(long seed, int count) {
        Random r = new Random(seed);
        List<Query> q = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String arg = COLUMNS[r.nextInt(COLUMNS.length)];
            boolean numeric = List.of(NUMERIC).contains(arg);
            List<String> items = new ArrayList<>();
            for (int n = 1 + r.nextInt(3); n > 0; n--) {
                int kind = numeric ? r.nextInt(4) : r.nextInt(2) * 3;
                items.add(
                        switch (kind) {
                            case 0 -> "COUNT(DISTINCT " + arg + ")";
                            case 1 -> "SUM(DISTINCT " + arg + ")";
                            case 2 -> "AVG(DISTINCT " + arg + ")";
                            default -> aggregate(r);
                        });
            }
            if (items.stream().noneMatch(item -> item.contains("DISTINCT"))) {
                items.add("COUNT(DISTINCT " + arg + ")");
            }
            String where = WHERE[r.nextInt(WHERE.length)];
            if (r.nextBoolean()) {
                q.add(unordered("SELECT " + String.join(", ", items) + " FROM t" + where));
                continue;
            }
            String key = KEYS[r.nextInt(KEYS.length)];
            String sql = "SELECT " + key + ", " + String.join(", ", items) + " FROM t" + where + " GROUP BY " + key;
            if (r.nextBoolean()) {
                q.add(ordered(sql + " ORDER BY " + key + (r.nextBoolean() ? " DESC" : "") + limit(r)));
            } else {
                q.add(unordered(sql));
            }
        }
        return q;
    }

    /** GROUP BY with HAVING over selected and hidden aggregates and keys, AND/OR/NOT, NULL tests. */
    static List<Query> generatedHaving(long seed, int count) {
        Random r = new Random(seed);
        List<Query> q = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String key = KEYS[r.nextInt(KEYS.length)];
            List<String> items = new ArrayList<>(List.of(key));
            for (int n = r.nextInt(3); n > 0; n--) {
                items.add(aggregate(r));
            }
            StringBuilder having = new StringBuilder(havingTerm(r, key));
            for (int n = r.nextInt(3); n > 0; n--) {
                having.append(r.nextBoolean() ? " AND " : " OR ").append(havingTerm(r, key));
            }
            String sql = "SELECT " + String.join(", ", items) + " FROM t" + WHERE[r.nextInt(WHERE.length)]
                    + " GROUP BY " + key + " HAVING " + having;
            if (r.nextBoolean()) {
                // not LIMIT 0: for HAVING ... LIMIT 0 MariaDB 11.4 describes the columns otherwise
                // (MAX(b) with 39 decimals, COUNT(*) BINARY) than the shards' GROUP BY without HAVING
                // does, whose descriptions the merge passes on; there are no rows either way
                String limit = limit(r).replace(" LIMIT 0", " LIMIT 1");
                q.add(ordered(sql + " ORDER BY " + key + (r.nextBoolean() ? " DESC" : "") + limit));
            } else {
                q.add(unordered(sql));
            }
        }
        return q;
    }

    private static String havingTerm(Random r, String key) {
        String[] ops = {"=", "<>", "<", "<=", ">", ">="};
        String op = ops[r.nextInt(ops.length)];
        String numeric = NUMERIC[r.nextInt(NUMERIC.length)];
        String term = switch (r.nextInt(6)) {
            case 0 -> "COUNT(*) " + op + " " + r.nextInt(40);
            case 1 -> "SUM(" + numeric + ") " + op + " " + (r.nextInt(2001) - 1000);
            case 2 -> "AVG(" + numeric + ") " + op + " " + (r.nextInt(41) - 20) + ".5";
            case 3 -> (r.nextBoolean() ? "MIN(" : "MAX(") + numeric + ") " + op + " " + (r.nextInt(201) - 100);
            case 4 -> key + (r.nextBoolean() ? " IS NULL" : " IS NOT NULL");
            default ->
                "COUNT(" + COLUMNS[r.nextInt(COLUMNS.length)] + ") BETWEEN " + r.nextInt(10) + " AND "
                        + (10 + r.nextInt(30));
        };
        return r.nextInt(5) == 0 ? "NOT (" + term + ")" : term;
    }

    private static Query sortedProjection(Random r) {
        List<String> select = pick(r, COLUMNS, 1 + r.nextInt(3));
        List<String> order = pick(r, COLUMNS, r.nextInt(3));
        order.remove("id");
        StringBuilder sql =
                new StringBuilder("SELECT ").append(String.join(", ", select)).append(" FROM t");
        sql.append(WHERE[r.nextInt(WHERE.length)]).append(" ORDER BY ");
        for (String o : order) {
            sql.append(o).append(r.nextBoolean() ? " DESC, " : ", ");
        }
        sql.append("id").append(r.nextBoolean() ? " DESC" : "");
        sql.append(limit(r));
        return ordered(sql.toString());
    }

    private static Query aggregates(Random r) {
        List<String> items = new ArrayList<>();
        for (int n = 1 + r.nextInt(4); n > 0; n--) {
            items.add(aggregate(r));
        }
        return unordered("SELECT " + String.join(", ", items) + " FROM t" + WHERE[r.nextInt(WHERE.length)]);
    }

    private static Query grouped(Random r) {
        List<String> keys = pick(r, KEYS, 1 + r.nextInt(2));
        List<String> items = new ArrayList<>();
        boolean selectKeys = r.nextInt(4) > 0;
        if (selectKeys) {
            items.addAll(keys);
        }
        for (int n = (selectKeys ? 0 : 1) + r.nextInt(3); n > 0; n--) {
            items.add(aggregate(r));
        }
        String sql = "SELECT " + String.join(", ", items) + " FROM t" + WHERE[r.nextInt(WHERE.length)] + " GROUP BY "
                + String.join(", ", keys);
        if (selectKeys && r.nextBoolean()) {
            StringBuilder order = new StringBuilder(" ORDER BY ");
            for (int i = 0; i < keys.size(); i++) {
                order.append(i == 0 ? "" : ", ").append(keys.get(i)).append(r.nextBoolean() ? " DESC" : "");
            }
            return ordered(sql + order + limit(r));
        }
        return unordered(sql);
    }

    private static Query distinct(Random r) {
        List<String> columns = pick(r, KEYS, 1 + r.nextInt(2));
        String sql = "SELECT DISTINCT " + String.join(", ", columns) + " FROM t" + WHERE[r.nextInt(WHERE.length)];
        if (r.nextBoolean()) {
            StringBuilder order = new StringBuilder(" ORDER BY ");
            for (int i = 0; i < columns.size(); i++) {
                order.append(i == 0 ? "" : ", ").append(columns.get(i)).append(r.nextBoolean() ? " DESC" : "");
            }
            return ordered(sql + order + limit(r));
        }
        return unordered(sql);
    }

    private static String aggregate(Random r) {
        return switch (r.nextInt(6)) {
            case 0 -> "COUNT(*)";
            case 1 -> "COUNT(" + COLUMNS[r.nextInt(COLUMNS.length)] + ")";
            case 2 -> "SUM(" + NUMERIC[r.nextInt(NUMERIC.length)] + ")";
            case 3 -> "MIN(" + COLUMNS[r.nextInt(COLUMNS.length)] + ")";
            case 4 -> "MAX(" + COLUMNS[r.nextInt(COLUMNS.length)] + ")";
            default -> "AVG(" + NUMERIC[r.nextInt(NUMERIC.length)] + ")";
        };
    }

    private static String limit(Random r) {
        return switch (r.nextInt(3)) {
            case 0 -> "";
            case 1 -> " LIMIT " + r.nextInt(12);
            default -> " LIMIT " + r.nextInt(20) + ", " + (1 + r.nextInt(10));
        };
    }

    private static List<String> pick(Random r, String[] from, int n) {
        List<String> all = new ArrayList<>(List.of(from));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n && !all.isEmpty(); i++) {
            out.add(all.remove(r.nextInt(all.size())));
        }
        return out;
    }

    private static Query ordered(String sql) {
        return new Query(sql, true);
    }

    private static Query unordered(String sql) {
        return new Query(sql, false);
    }
}
