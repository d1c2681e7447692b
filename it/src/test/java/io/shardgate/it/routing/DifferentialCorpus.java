package io.shardgate.it.routing;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The data and the queries of {@link DifferentialCorpusIT}: tables of every strategy (hash, range,
 * table, broadcast, an unlisted one, a binding group), rows with NULLs and strings that collate
 * alike ({@code 'alice'}, {@code 'Alice'}, {@code 'émile'}...), and a query corpus: hand-written
 * cases plus cases generated from a seed, each with its parameters, so the same query runs as
 * text (literals inlined) and as a server-side prepared statement (parameters bound).
 */
final class DifferentialCorpus {
    /** A query: SQL with {@code ?} placeholders, their values, and whether its ORDER BY fixes the row order. */
    record Query(String sql, List<Object> params, boolean ordered) {
        /** The SQL with every placeholder replaced by its value as a literal. */
        String literal() {
            StringBuilder out = new StringBuilder();
            int p = 0;
            for (int i = 0; i < sql.length(); i++) {
                char c = sql.charAt(i);
                if (c == '?') {
                    Object v = params.get(p++);
                    out.append(v instanceof String s ? "'" + s.replace("'", "''") + "'" : String.valueOf(v));
                } else {
                    out.append(c);
                }
            }
            return out.toString();
        }
    }

    static final String SCHEMA = "diff";

    /** The rules: hash and range tables over three shards, a binding group, one table per strategy. */
    static final List<String> TABLES = List.of(
            "{name: customers, strategy: hash, column: id, buckets: 12, hostgroups: {10: \"0-3\", 20: \"4-7\", 30:"
                    + " \"8-11\"}}",
            "{name: orders, strategy: hash, column: customer_id, buckets: 12, hostgroups: {10: \"0-3\", 20: \"4-7\","
                    + " 30: \"8-11\"}}",
            "{name: events, strategy: range, column: id, ranges: [{below: 100, hostgroup: 10}, {below: 200,"
                    + " hostgroup: 20}, {hostgroup: 30}]}",
            "{name: regions, strategy: table, hostgroup: 20}",
            "{name: countries, strategy: broadcast}");

    static final List<String> EXTRA = List.of("binding_groups: [[customers, orders]]");

    static final List<String> DDL = List.of(
            "CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL, city VARCHAR(20),"
                    + " score INT, created DATE NOT NULL) DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci",
            "CREATE TABLE orders (id BIGINT NOT NULL, customer_id BIGINT NOT NULL, amount DECIMAL(8,2) NOT NULL,"
                    + " status VARCHAR(10), country CHAR(2), PRIMARY KEY (customer_id, id))"
                    + " DEFAULT CHARSET utf8mb4",
            "CREATE TABLE events (id INT PRIMARY KEY, kind VARCHAR(10) NOT NULL, value INT, at DATETIME NOT NULL)",
            "CREATE TABLE regions (code CHAR(2) PRIMARY KEY, name VARCHAR(30) NOT NULL)",
            "CREATE TABLE countries (code CHAR(2) PRIMARY KEY, name VARCHAR(30) NOT NULL, region CHAR(2) NOT NULL)",
            "CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(60))");

    private static final String[] NAMES = {
        "alice", "Alice", "ALICE", "bob", "Bob", "émile", "emile", "Émile", "zoë", "zoe", "carl", "dave"
    };
    private static final String[] CITIES = {"Paris", "paris", "Berlin", "Oslo", "oslo", null};
    private static final String[] STATUSES = {"new", "paid", "shipped", null};
    private static final String[] KINDS = {"click", "view", "buy"};
    private static final String[] COUNTRIES = {"NL", "FR", "DE", "NO", "IT"};

    static final int CUSTOMERS = 60;
    static final int ORDERS = 240;

    private DifferentialCorpus() {}

    /** INSERT statements loading the same rows into the cluster (through the router) and the reference. */
    static List<String> data(long seed) {
        Random r = new Random(seed);
        List<String> out = new ArrayList<>();
        out.add("INSERT INTO regions (code, name) VALUES ('EU', 'Europe'), ('NA', 'North America'), ('AS', 'Asia')");
        out.add("INSERT INTO countries (code, name, region) VALUES ('NL', 'Netherlands', 'EU'), ('FR', 'France', 'EU'),"
                + " ('DE', 'Germany', 'EU'), ('NO', 'Norway', 'EU'), ('US', 'United States', 'NA')");
        out.add("INSERT INTO notes (id, body) VALUES (1, 'first'), (2, NULL), (3, 'third')");
        List<String> rows = new ArrayList<>();
        for (int id = 1; id <= CUSTOMERS; id++) {
            String city = CITIES[r.nextInt(CITIES.length)];
            rows.add("(" + id + ", '" + NAMES[r.nextInt(NAMES.length)] + "', "
                    + (city == null ? "NULL" : "'" + city + "'")
                    + ", " + (r.nextInt(10) == 0 ? "NULL" : Integer.toString(r.nextInt(101))) + ", '2024-0"
                    + (1 + r.nextInt(9)) + "-1" + r.nextInt(10) + "')");
        }
        out.add("INSERT INTO customers (id, name, city, score, created) VALUES " + String.join(", ", rows));
        rows.clear();
        for (int id = 1; id <= ORDERS; id++) {
            String status = STATUSES[r.nextInt(STATUSES.length)];
            rows.add("(" + id + ", " + (1 + r.nextInt(CUSTOMERS)) + ", "
                    + new BigDecimal(r.nextInt(100_000)).movePointLeft(2)
                    + ", " + (status == null ? "NULL" : "'" + status + "'") + ", '"
                    + COUNTRIES[r.nextInt(COUNTRIES.length)] + "')");
        }
        out.add("INSERT INTO orders (id, customer_id, amount, status, country) VALUES " + String.join(", ", rows));
        rows.clear();
        for (int id = 1; id <= 290; id += 1 + r.nextInt(2)) {
            rows.add("(" + id + ", '" + KINDS[r.nextInt(KINDS.length)] + "', "
                    + (r.nextInt(8) == 0 ? "NULL" : Integer.toString(r.nextInt(50) - 10)) + ", '2024-05-0"
                    + (1 + r.nextInt(9)) + " 1" + r.nextInt(10) + ":00:00')");
        }
        out.add("INSERT INTO events (id, kind, value, at) VALUES " + String.join(", ", rows));
        return out;
    }

    private static Query q(String sql, boolean ordered, Object... params) {
        return new Query(sql, List.of(params), ordered);
    }

    /** Hand-written cases: every route and merge kind at least once, NULLs and collation edges. */
    static List<Query> handWritten() {
        List<Query> out = new ArrayList<>();
        // point, IN, range
        out.add(q("SELECT id, name, city, score, created FROM customers WHERE id = ?", true, 7));
        out.add(q("SELECT * FROM customers WHERE id = ?", true, 1000));
        out.add(q("SELECT id, name FROM customers WHERE id IN (?, ?, ?, ?)", false, 1, 2, 33, 59));
        out.add(q("SELECT * FROM events WHERE id BETWEEN ? AND ?", false, 90, 210));
        out.add(q("SELECT id, kind FROM events WHERE id >= ? AND id < ? ORDER BY id", true, 150, 260));
        out.add(q("SELECT id FROM events WHERE id > ? ORDER BY id DESC LIMIT ?", true, 10, 7));
        out.add(q("SELECT COUNT(*) FROM events WHERE id < ?", true, 100));
        // scatter filters, NULLs
        out.add(q("SELECT id, score FROM customers WHERE score IS NULL", false));
        out.add(q("SELECT id, city FROM customers WHERE city IS NOT NULL AND score > ?", false, 50));
        out.add(q("SELECT id FROM customers WHERE city = ?", false, "paris"));
        out.add(q("SELECT id, name FROM customers WHERE name = ?", false, "ALICE"));
        out.add(q("SELECT id, name FROM customers WHERE name LIKE ?", false, "%mile"));
        out.add(q("SELECT id FROM orders WHERE status IS NULL AND amount < ?", false, 300));
        out.add(q(
                "SELECT COUNT(*), COUNT(status), COUNT(DISTINCT customer_id) FROM orders WHERE customer_id = ?",
                true,
                12));
        // ORDER BY / LIMIT / OFFSET
        out.add(q("SELECT id, name, score FROM customers ORDER BY score DESC, id LIMIT ?", true, 10));
        out.add(q("SELECT id, score FROM customers ORDER BY score, id LIMIT ?, ?", true, 5, 10));
        out.add(q("SELECT id, amount FROM orders ORDER BY amount DESC, id DESC LIMIT ?", true, 15));
        out.add(q("SELECT name, id FROM customers ORDER BY id LIMIT ?", true, 25));
        out.add(q("SELECT id, city FROM customers WHERE id < ? ORDER BY city, id", true, 30));
        out.add(q("SELECT id, created FROM customers ORDER BY created DESC, id LIMIT ?", true, 12));
        out.add(q("SELECT id FROM events ORDER BY value, id LIMIT ?", true, 20));
        // aggregates
        out.add(q("SELECT COUNT(*) FROM customers", true));
        out.add(q("SELECT COUNT(*), SUM(score), MIN(score), MAX(score), AVG(score) FROM customers", true));
        out.add(q(
                "SELECT SUM(amount), AVG(amount), MIN(amount), MAX(amount) FROM orders WHERE status = ?",
                true,
                "paid"));
        out.add(q("SELECT COUNT(score), COUNT(city) FROM customers WHERE id > ?", true, 20));
        out.add(q("SELECT MIN(created), MAX(created) FROM customers", true));
        out.add(q("SELECT SUM(value), COUNT(*) FROM events WHERE kind = ?", true, "buy"));
        out.add(q("SELECT MAX(score) FROM customers WHERE score < ?", true, 0));
        // GROUP BY
        out.add(q("SELECT status, COUNT(*), SUM(amount) FROM orders GROUP BY status", false));
        out.add(q("SELECT kind, COUNT(*), MIN(value), MAX(value) FROM events GROUP BY kind ORDER BY kind", true));
        out.add(q("SELECT country, AVG(amount) FROM orders GROUP BY country ORDER BY country", true));
        out.add(q("SELECT customer_id, COUNT(*), SUM(amount) FROM orders GROUP BY customer_id", false));
        out.add(q("SELECT customer_id, COUNT(*) FROM orders GROUP BY customer_id HAVING COUNT(*) > ?", false, 4));
        out.add(q("SELECT status, country, COUNT(*) FROM orders GROUP BY status, country", false));
        out.add(q("SELECT city, COUNT(*) FROM customers GROUP BY city", false));
        // DISTINCT
        out.add(q("SELECT DISTINCT status FROM orders", false));
        out.add(q("SELECT DISTINCT kind FROM events WHERE value > ?", false, 5));
        out.add(q("SELECT DISTINCT country FROM orders ORDER BY country", true));
        out.add(q("SELECT DISTINCT city FROM customers", false));
        out.add(q("SELECT DISTINCT name FROM customers", false));
        // joins: binding group, broadcast, table strategy
        out.add(q(
                "SELECT c.id, c.name, o.id, o.amount FROM customers c JOIN orders o ON o.customer_id = c.id WHERE"
                        + " c.id = ?",
                false,
                12));
        out.add(q(
                "SELECT c.id, o.id FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.amount > ?",
                false,
                900));
        out.add(q("SELECT c.id, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.id", false));
        out.add(q(
                "SELECT o.id, k.name FROM orders o JOIN countries k ON k.code = o.country WHERE o.customer_id = ?",
                false,
                5));
        out.add(q(
                "SELECT o.id, k.name FROM orders o JOIN countries k ON k.code = o.country WHERE o.amount > ?",
                false,
                950));
        out.add(q("SELECT k.code, r.name FROM countries k JOIN regions r ON r.code = k.region", false));
        out.add(q(
                "SELECT r.name, COUNT(*) FROM regions r JOIN countries k ON k.region = r.code GROUP BY r.name", false));
        out.add(q("SELECT code, name FROM countries ORDER BY code", true));
        out.add(q("SELECT * FROM regions WHERE code = ?", true, "EU"));
        out.add(q("SELECT id, body FROM notes ORDER BY id", true));
        out.add(q("SELECT COUNT(body) FROM notes", true));
        out.add(q("SELECT n.id, k.name FROM notes n JOIN countries k ON k.code = ?", false, "NL"));
        // expressions over aggregates: computed by the merge from the merged partials
        out.add(q("SELECT SUM(amount)/COUNT(*) FROM orders", true));
        out.add(q("SELECT SUM(score)/COUNT(*), SUM(score)/COUNT(score) FROM customers", true));
        out.add(q("SELECT MAX(score)-MIN(score) FROM customers", true));
        out.add(q(
                "SELECT ROUND(AVG(amount), 2), ROUND(AVG(score)) FROM orders JOIN customers ON customers.id ="
                        + " orders.customer_id",
                true));
        out.add(q("SELECT ROUND(AVG(score), ?) FROM customers WHERE id > ?", true, 1, 10));
        out.add(q("SELECT COUNT(*)+1, COUNT(*) * ?, -SUM(value) FROM events", true, 3));
        out.add(q("SELECT COALESCE(SUM(score), 0), IFNULL(MAX(score), -1) FROM customers WHERE id > ?", true, 1000));
        out.add(q("SELECT ABS(MIN(value)) + MAX(value) FROM events", true));
        out.add(q(
                "SELECT status, COUNT(*) * 2, MAX(amount) - MIN(amount) AS spread FROM orders GROUP BY status"
                        + " ORDER BY spread DESC",
                true));
        out.add(q(
                "SELECT kind, SUM(value) / COUNT(*) AS mean FROM events GROUP BY kind HAVING mean > ? ORDER BY"
                        + " kind",
                true,
                10));
        out.add(q(
                "SELECT country, ROUND(SUM(amount) / COUNT(*), 1) FROM orders GROUP BY country ORDER BY 2 DESC,"
                        + " country LIMIT ?",
                true,
                3));
        out.add(q("SELECT city, COUNT(*) + ? FROM customers GROUP BY city", false, 100));
        out.add(q("SELECT customer_id, SUM(amount) / COUNT(*) FROM orders GROUP BY customer_id", false));
        out.add(q("SELECT SUM(value) / SUM(id) FROM events WHERE id < ?", true, 150));
        // derived tables: pushed down when the inner result is the union of the shards' results
        out.add(q("SELECT COUNT(*), SUM(amount) FROM (SELECT id, amount FROM orders WHERE amount > ?) t", true, 500));
        out.add(q(
                "SELECT t.customer_id, t.total FROM (SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY"
                        + " customer_id) t WHERE t.total > ? ORDER BY t.total DESC, t.customer_id LIMIT ?",
                true,
                2000,
                5));
        out.add(q(
                "SELECT AVG(n), MAX(n), MIN(total) FROM (SELECT customer_id, COUNT(*) AS n, SUM(amount) AS total"
                        + " FROM orders GROUP BY customer_id) t",
                true));
        out.add(q("SELECT COUNT(*) FROM (SELECT status FROM orders WHERE customer_id = ? GROUP BY status) t", true, 7));
        out.add(q(
                "SELECT x.kind, COUNT(*) FROM (SELECT id, kind FROM events WHERE id BETWEEN ? AND ?) x GROUP BY"
                        + " x.kind ORDER BY x.kind",
                true,
                50,
                250));
        out.add(q("SELECT * FROM (SELECT code, name FROM countries WHERE region = ?) k ORDER BY code", true, "EU"));
        // UNION: on one hostgroup or broadcast tables unchanged; over sharded tables each shard's, merged
        out.add(q("SELECT code FROM countries UNION SELECT code FROM regions ORDER BY code", true));
        out.add(q("SELECT id FROM notes UNION ALL SELECT id FROM notes", false));
        out.add(q("SELECT id FROM customers WHERE id < ? UNION ALL SELECT id FROM events WHERE id < ?", false, 5, 5));
        out.add(q("SELECT city FROM customers UNION SELECT status FROM orders", false));
        out.add(q(
                "SELECT customer_id AS id FROM orders WHERE amount > ? UNION SELECT id FROM customers WHERE score >"
                        + " ? ORDER BY id DESC LIMIT ?, ?",
                true,
                900,
                80,
                2,
                6));
        out.add(q(
                "SELECT id, kind FROM events WHERE value > ? UNION ALL SELECT id, name FROM customers WHERE id = ?"
                        + " ORDER BY 1, 2 LIMIT ?",
                true,
                30,
                12,
                8));
        out.add(q(
                "SELECT customer_id, SUM(amount) FROM orders GROUP BY customer_id UNION ALL SELECT id, score FROM"
                        + " customers WHERE id < ?",
                false,
                10));
        out.add(q("SELECT id FROM orders UNION ALL SELECT code FROM countries", false));
        out.add(q("SELECT status FROM orders GROUP BY status UNION SELECT name FROM customers", false));
        // the classes of issue 18 that now answer exactly: MySQL's "rest of the rows" LIMIT, modifiers
        out.add(q("SELECT id FROM customers ORDER BY id LIMIT 3, 18446744073709551615", true));
        out.add(q("SELECT id FROM customers ORDER BY id LIMIT 18446744073709551615, 5", true));
        out.add(q("SELECT SQL_NO_CACHE HIGH_PRIORITY id, name FROM customers WHERE id = ?", true, 7));
        out.add(q("SELECT DISTINCTROW status FROM orders", false));
        // ...and those refused by default (EXPECTED_REFUSALS)
        out.add(q("SELECT BIT_OR(score) FROM customers", true));
        out.add(q("SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM customers", false));
        out.add(q("SELECT c.code, o.id FROM countries c LEFT JOIN orders o ON o.country = c.code", false));
        out.add(q("SELECT id FROM customers WHERE created < NOW()", false));
        // refused with a reason (EXPECTED_REFUSALS)
        out.add(q("SELECT COUNT(*) FROM (SELECT status FROM orders GROUP BY status) t", true));
        out.add(q("SELECT * FROM (SELECT id FROM customers ORDER BY id LIMIT ?) t", false, 5));
        // refused with a reason (EXPECTED_REFUSALS): MySQL's intermediate quotient precision
        out.add(q("SELECT SUM(amount) / COUNT(*) * 100 FROM orders", true));
        out.add(q("SELECT AVG(score) + 1 FROM customers", true));
        return out;
    }

    /** {@code count} cases generated from {@code seed}: templates over random keys, bounds and limits. */
    static List<Query> generated(long seed, int count) {
        Random r = new Random(seed);
        List<Query> out = new ArrayList<>();
        while (out.size() < count) {
            int id = 1 + r.nextInt(CUSTOMERS + 5);
            int low = r.nextInt(300);
            int high = low + r.nextInt(120);
            int limit = 1 + r.nextInt(20);
            int score = r.nextInt(110) - 5;
            String name = NAMES[r.nextInt(NAMES.length)];
            String status = STATUSES[r.nextInt(3)];
            BigDecimal amount = new BigDecimal(r.nextInt(100_000)).movePointLeft(2);
            switch (r.nextInt(20)) {
                case 18 ->
                    out.add(q(
                            "SELECT kind, COUNT(*) + ?, MAX(value) - MIN(value), ROUND(SUM(value) / COUNT(value), ?) FROM"
                                    + " events WHERE id > ? GROUP BY kind",
                            false,
                            limit,
                            r.nextInt(4),
                            low));
                case 19 ->
                    out.add(q(
                            "SELECT SUM(amount) / COUNT(*), MAX(amount) - MIN(amount), COUNT(*) * ? FROM orders WHERE"
                                    + " amount < ?",
                            true,
                            limit,
                            amount));
                case 0 -> out.add(q("SELECT id, name, city, score FROM customers WHERE id = ?", true, id));
                case 1 ->
                    out.add(q(
                            "SELECT id, score FROM customers WHERE id IN (?, ?, ?)",
                            false,
                            id,
                            1 + r.nextInt(CUSTOMERS),
                            1 + r.nextInt(CUSTOMERS)));
                case 2 -> out.add(q("SELECT id, kind, value FROM events WHERE id BETWEEN ? AND ?", false, low, high));
                case 3 ->
                    out.add(q(
                            "SELECT id, value FROM events WHERE id >= ? AND id < ? ORDER BY id LIMIT ?",
                            true,
                            low,
                            high,
                            limit));
                case 4 ->
                    out.add(q(
                            "SELECT id, name, score FROM customers WHERE score > ? ORDER BY score DESC, id LIMIT ?",
                            true,
                            score,
                            limit));
                case 5 ->
                    out.add(q(
                            "SELECT COUNT(*), SUM(score), MIN(score), MAX(score), AVG(score) FROM customers WHERE score"
                                    + " >= ?",
                            true,
                            score));
                case 6 ->
                    out.add(q(
                            "SELECT city, COUNT(*), SUM(score) FROM customers WHERE id > ? GROUP BY city ORDER BY city",
                            true,
                            id));
                case 7 -> out.add(q("SELECT DISTINCT status FROM orders WHERE amount > ?", false, amount));
                case 8 ->
                    out.add(q(
                            "SELECT c.id, c.name, o.id, o.amount FROM customers c JOIN orders o ON o.customer_id = c.id"
                                    + " WHERE c.id = ?",
                            false,
                            id));
                case 9 ->
                    out.add(q(
                            "SELECT o.id, o.status, k.name FROM orders o JOIN countries k ON k.code = o.country WHERE"
                                    + " o.customer_id = ?",
                            false,
                            id));
                case 10 -> out.add(q("SELECT id, name FROM customers WHERE name = ?", false, name));
                case 11 ->
                    out.add(q(
                            "SELECT id, amount FROM orders WHERE status = ? ORDER BY amount, id LIMIT ?, ?",
                            true,
                            status,
                            r.nextInt(5),
                            limit));
                case 12 ->
                    out.add(q(
                            "SELECT kind, COUNT(*), SUM(value), AVG(value) FROM events WHERE id > ? GROUP BY kind",
                            false,
                            low));
                case 13 ->
                    out.add(q(
                            "SELECT COUNT(*), MAX(amount) FROM orders WHERE customer_id IN (?, ?)",
                            true,
                            id,
                            1 + r.nextInt(CUSTOMERS)));
                case 14 ->
                    out.add(q(
                            "SELECT id FROM customers WHERE score BETWEEN ? AND ? ORDER BY id",
                            true,
                            score,
                            score + 30));
                case 15 ->
                    out.add(q(
                            "SELECT customer_id, COUNT(*) FROM orders WHERE amount < ? GROUP BY customer_id ORDER BY"
                                    + " customer_id",
                            true,
                            amount));
                case 16 -> out.add(q("SELECT id, city FROM customers WHERE city = ? AND id < ?", false, "oslo", id));
                default ->
                    out.add(q("SELECT DISTINCT country FROM orders WHERE customer_id > ? ORDER BY country", true, id));
            }
        }
        return out;
    }
}
