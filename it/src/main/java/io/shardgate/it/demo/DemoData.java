package io.shardgate.it.demo;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo's shop: its sharding rules as YAML, its tables and sample rows. Everything is created
 * and loaded through the router, so each row lands on the shard the rules name for it: customers by
 * their id, their orders and order items beside them (hash on customer_id, one binding group), the
 * countries table copied to every shard. Two customers sign up without an id and get a snowflake id
 * from the router.
 */
final class DemoData {
    static final int BUCKETS = 1024;
    /** Customers loaded with an explicit id (1..N); the lookup the banner prints uses one of them. */
    static final int LISTED_CUSTOMERS = 12;

    static final String[][] COUNTRIES = {
        {"DE", "Germany"},
        {"FR", "France"},
        {"GB", "United Kingdom"},
        {"NL", "Netherlands"},
        {"US", "United States"},
        {"JP", "Japan"},
        {"DK", "Denmark"}
    };
    private static final String[][] CUSTOMERS = {
        {"Ada Lovelace", "GB"}, {"Grace Hopper", "US"}, {"Edsger Dijkstra", "NL"}, {"Zoë Ünicode 😀", "DE"},
        {"Alan Kay", "US"}, {"Barbara Liskov", "US"}, {"Niklaus Wirth", "DE"}, {"Frances Allen", "US"},
        {"Tony Hoare", "GB"}, {"Yukihiro Matsumoto", "JP"}, {"Margaret Hamilton", "US"}, {"Jean Ichbiah", "FR"}
    };
    private static final String[][] SIGN_UPS = {{"Anders Hejlsberg", "DK"}, {"Sophie Wilson", "GB"}};
    private static final String[] STATUSES = {"new", "paid", "shipped"};
    private static final String[] SKUS = {"keyboard", "mouse", "monitor", "cable", "laptop-stand"};
    private static final BigDecimal[] PRICES = {
        new BigDecimal("49.90"),
        new BigDecimal("19.99"),
        new BigDecimal("219.00"),
        new BigDecimal("7.50"),
        new BigDecimal("34.00")
    };

    private DemoData() {}

    /**
     * The {@code schemas} section: three tables hashed alike into {@value #BUCKETS} buckets spread
     * evenly over hostgroups 10, 20, ... (one per shard), one broadcast table.
     */
    static List<String> schemaYaml(String schema, int shards) {
        String buckets = bucketMap(shards);
        return List.of(
                "schemas:",
                "  - name: " + schema,
                "    default_hostgroup: 10",
                "    tables:",
                "      - {name: customers, strategy: hash, column: id, buckets: " + BUCKETS + ", hostgroups: " + buckets
                        + ", key_generation: snowflake}",
                "      - {name: orders, strategy: hash, column: customer_id, buckets: " + BUCKETS + ", hostgroups: "
                        + buckets + "}",
                "      - {name: order_items, strategy: hash, column: customer_id, buckets: " + BUCKETS
                        + ", hostgroups: " + buckets + "}",
                "      - {name: countries, strategy: broadcast}",
                "    binding_groups: [[customers, orders, order_items]]");
    }

    /** {@code {10: "0-341", 20: "342-682", 30: "683-1023"}} for three shards. */
    static String bucketMap(int shards) {
        List<String> entries = new ArrayList<>();
        for (int i = 0; i < shards; i++) {
            int first = BUCKETS * i / shards;
            int last = BUCKETS * (i + 1) / shards - 1;
            entries.add(hostgroup(i) + ": \"" + first + "-" + last + "\"");
        }
        return "{" + String.join(", ", entries) + "}";
    }

    static int hostgroup(int shardIndex) {
        return 10 * (shardIndex + 1);
    }

    /** Creates the tables and loads the rows through {@code router} (a connection to the demo schema). */
    static void load(Connection router) throws SQLException {
        try (Statement s = router.createStatement()) {
            s.execute("CREATE TABLE countries (code CHAR(2) PRIMARY KEY, name VARCHAR(60) NOT NULL)");
            s.execute("CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR(100) NOT NULL,"
                    + " country CHAR(2) NOT NULL, created DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6))");
            s.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, customer_id BIGINT NOT NULL,"
                    + " status VARCHAR(16) NOT NULL, total DECIMAL(10,2) NOT NULL, KEY (customer_id))");
            s.execute("CREATE TABLE order_items (order_id BIGINT NOT NULL, line INT NOT NULL,"
                    + " customer_id BIGINT NOT NULL, sku VARCHAR(20) NOT NULL, quantity INT NOT NULL,"
                    + " price DECIMAL(10,2) NOT NULL, PRIMARY KEY (order_id, line), KEY (customer_id))");
        }
        try (PreparedStatement country = router.prepareStatement("INSERT INTO countries (code, name) VALUES (?, ?)")) {
            for (String[] c : COUNTRIES) {
                country.setString(1, c[0]);
                country.setString(2, c[1]);
                country.executeUpdate();
            }
        }
        List<Long> customerIds = new ArrayList<>();
        try (PreparedStatement customer =
                router.prepareStatement("INSERT INTO customers (id, name, country) VALUES (?, ?, ?)")) {
            for (int i = 0; i < CUSTOMERS.length; i++) {
                customer.setLong(1, i + 1);
                customer.setString(2, CUSTOMERS[i][0]);
                customer.setString(3, CUSTOMERS[i][1]);
                customer.executeUpdate();
                customerIds.add((long) i + 1);
            }
        }
        // no id: the router generates a snowflake id and routes the row by it
        try (PreparedStatement signUp = router.prepareStatement(
                "INSERT INTO customers (name, country) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS)) {
            for (String[] c : SIGN_UPS) {
                signUp.setString(1, c[0]);
                signUp.setString(2, c[1]);
                signUp.executeUpdate();
                try (ResultSet keys = signUp.getGeneratedKeys()) {
                    if (!keys.next()) {
                        throw new SQLException("the router returned no generated key for a new customer");
                    }
                    customerIds.add(keys.getLong(1));
                }
            }
        }
        loadOrders(router, customerIds);
    }

    /** One to four orders per customer, one to three items each; totals add up the items. */
    private static void loadOrders(Connection router, List<Long> customerIds) throws SQLException {
        List<String> orders = new ArrayList<>();
        List<String> items = new ArrayList<>();
        long orderId = 1000;
        int n = 0;
        for (long customer : customerIds) {
            int count = 1 + (int) (n % 4);
            for (int o = 0; o < count; o++, n++) {
                orderId++;
                BigDecimal total = BigDecimal.ZERO;
                int lines = 1 + (n % 3);
                for (int line = 1; line <= lines; line++) {
                    int product = (n + line) % SKUS.length;
                    int quantity = 1 + (n * line) % 3;
                    total = total.add(PRICES[product].multiply(BigDecimal.valueOf(quantity)));
                    items.add("(" + orderId + ", " + line + ", " + customer + ", '" + SKUS[product] + "', " + quantity
                            + ", " + PRICES[product] + ")");
                }
                orders.add(
                        "(" + orderId + ", " + customer + ", '" + STATUSES[n % STATUSES.length] + "', " + total + ")");
            }
        }
        try (Statement s = router.createStatement()) {
            // multi-row INSERTs: the router splits them per shard
            s.executeUpdate("INSERT INTO orders (id, customer_id, status, total) VALUES " + String.join(", ", orders));
            s.executeUpdate("INSERT INTO order_items (order_id, line, customer_id, sku, quantity, price) VALUES "
                    + String.join(", ", items));
        }
    }
}
