package io.shardgate.it.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQL admin port's views of a running router, through Connector/J and MariaDB Connector/J,
 * with one router (embedded ZooKeeper) in front of two real MariaDB servers: statements run on
 * the MySQL port show up in {@code stats_query_digest}, pinned sessions in {@code stats_sessions}
 * with their reasons, {@code UPDATE runtime_servers SET status} drains a server, and {@code PURGE
 * CACHE} makes the next read go to the backend. Table {@code items} is on hostgroup 10 (cached by
 * query rule 1), {@code far} on hostgroup 20.
 */
class AdminSqlIT {
    private static final String SCHEMA = "shop";
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final String ADMIN = "admin";
    private static final String ADMIN_PASSWORD = "admin-secret";
    private static final String BACKEND_USER = "shardgate";
    private static final String BACKEND_PASSWORD = "sg-secret";

    @TempDir
    static Path dir;

    private static MariaDbServer shard10;
    private static MariaDbServer shard20;
    private static Shardgate router;

    @BeforeAll
    static void start() throws Exception {
        shard10 = shard(
                "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40))",
                "INSERT INTO items VALUES (1, 'one'), (2, 'two'), (3, 'three')");
        shard20 = shard("CREATE TABLE far (id INT PRIMARY KEY)", "INSERT INTO far VALUES (20)");
        router = Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, http_port: 0, admin_port: 0, data_dir: \""
                        + Files.createDirectories(dir.resolve("router")) + "\"}",
                "users: [{name: " + USER + ", password: " + PASSWORD + "}]",
                "admin: {users: [{name: " + ADMIN + ", password: " + ADMIN_PASSWORD + "}]}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + shard10.address() + "\", user: " + BACKEND_USER + ", password: "
                        + BACKEND_PASSWORD + "}",
                "  - {id: 20, writer: \"" + shard20.address() + "\", user: " + BACKEND_USER + ", password: "
                        + BACKEND_PASSWORD + "}",
                "schemas:",
                "  - {name: " + SCHEMA
                        + ", default_hostgroup: 10, tables: [{name: far, strategy: table, hostgroup: 20}]}",
                "cache: {enabled: true, max_bytes: 16777216}",
                "query_rules:",
                "  - {match_digest: \"FROM `?items`? WHERE `?id`? = \", cache_ttl_ms: 600000}",
                "")));
    }

    private static MariaDbServer shard(String... statements) throws SQLException {
        MariaDbServer server = MariaDbServer.builder()
                .database(SCHEMA)
                .user(BACKEND_USER, BACKEND_PASSWORD)
                .innodbBufferPoolSize("64M")
                .start();
        try (Connection c = direct(server);
                Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
        return server;
    }

    private static Connection direct(MariaDbServer server) throws SQLException {
        return Driver.MARIADB.connect(server.port(), SCHEMA, BACKEND_USER, BACKEND_PASSWORD);
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {router, shard10, shard20}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private static Connection client() throws SQLException {
        return Driver.MARIADB.connect(router.mysqlPort(), SCHEMA, USER, PASSWORD);
    }

    private static Connection admin(Driver driver) throws SQLException {
        return driver.connect(router.adminPort(), null, ADMIN, ADMIN_PASSWORD);
    }

    /** Every row of an admin query, column name to value as text. */
    private static List<Map<String, String>> rows(Connection admin, String sql) throws SQLException {
        List<Map<String, String>> rows = new ArrayList<>();
        try (Statement s = admin.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                Map<String, String> row = new LinkedHashMap<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.put(meta.getColumnLabel(i), rs.getString(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    /** The digest rows whose statement shape, without backquotes and in lower case, is {@code shape}. */
    private static List<Map<String, String>> digest(Connection admin, String shape) throws SQLException {
        return rows(admin, "SELECT * FROM stats_query_digest").stream()
                .filter(r -> r.get("digest_text")
                        .replace("`", "")
                        .toLowerCase(Locale.ROOT)
                        .equals(shape))
                .toList();
    }

    private static long number(Map<String, String> row, String column) {
        return Long.parseLong(row.get(column));
    }

    @Test
    void digestsCountTextAndPreparedStatementsWithPercentilesAndRows() throws Exception {
        try (Connection admin = admin(Driver.MYSQL);
                Connection c = client();
                Connection prepared = Driver.MARIADB.connect(
                        router.mysqlPort(), SCHEMA, USER, PASSWORD, Map.of("useServerPrepStmts", "true"))) {
            try (Statement s = admin.createStatement()) {
                s.executeUpdate("DELETE FROM stats_query_digest");
            }
            try (Statement s = c.createStatement()) {
                for (int i = 0; i < 5; i++) {
                    try (ResultSet rs = s.executeQuery("SELECT id, name FROM items WHERE id >= " + (i % 2 + 1))) {
                        while (rs.next()) {
                            assertThat(rs.getString(2)).isNotNull();
                        }
                    }
                }
                // Connector/J's default CLIENT_FOUND_ROWS: the row matched counts
                assertThat(s.executeUpdate("UPDATE far SET id = id WHERE id > 0"))
                        .isEqualTo(1);
            }
            try (PreparedStatement p = prepared.prepareStatement("SELECT name FROM items WHERE name <> ?")) {
                for (int i = 0; i < 3; i++) {
                    p.setString(1, "two");
                    try (ResultSet rs = p.executeQuery()) {
                        int n = 0;
                        while (rs.next()) {
                            n++;
                        }
                        assertThat(n).isEqualTo(2);
                    }
                }
            }

            List<Map<String, String>> text = digest(admin, "select id, name from items where id >= ?");
            assertThat(text).hasSize(1);
            Map<String, String> row = text.get(0);
            assertThat(row.get("schema")).isEqualTo(SCHEMA);
            assertThat(number(row, "hostgroup")).isEqualTo(10);
            assertThat(number(row, "count")).isEqualTo(5);
            assertThat(number(row, "errors")).isZero();
            assertThat(number(row, "rows_sent")).as("3 + 2 + 3 + 2 + 3 rows").isEqualTo(13);
            assertThat(number(row, "p50_time_us")).isPositive();
            assertThat(number(row, "p50_time_us")).isLessThanOrEqualTo(number(row, "p95_time_us"));
            assertThat(number(row, "p95_time_us")).isLessThanOrEqualTo(number(row, "p99_time_us"));
            assertThat(number(row, "p99_time_us")).isLessThanOrEqualTo(number(row, "max_time_us"));
            assertThat(number(row, "min_time_us")).isLessThanOrEqualTo(number(row, "p50_time_us"));

            List<Map<String, String>> update = digest(admin, "update far set id = id where id > ?");
            assertThat(update).hasSize(1);
            assertThat(number(update.get(0), "hostgroup")).isEqualTo(20);
            assertThat(number(update.get(0), "rows_sent")).isZero();

            List<Map<String, String>> execute = digest(admin, "select name from items where name <> ?");
            assertThat(execute)
                    .as("COM_STMT_EXECUTE under the prepared SQL's digest")
                    .hasSize(1);
            assertThat(number(execute.get(0), "count")).isEqualTo(3);
            assertThat(number(execute.get(0), "rows_sent")).isEqualTo(6);
            assertThat(number(execute.get(0), "p99_time_us")).isPositive();
        }
    }

    @Test
    void digestsCountAffectedRows() throws Exception {
        try (Connection admin = admin(Driver.MARIADB);
                Connection c = client();
                Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE far SET id = 21 WHERE id = 20");
            s.executeUpdate("UPDATE far SET id = 20 WHERE id = 21");
            List<Map<String, String>> update = digest(admin, "update far set id = ? where id = ?");
            assertThat(update).hasSize(1);
            assertThat(number(update.get(0), "rows_affected")).isEqualTo(2);
        }
    }

    @Test
    void sessionsShowWhoIsPinnedAndWhy() throws Exception {
        try (Connection admin = admin(Driver.MARIADB);
                Connection inTransaction = client();
                Connection withVariable = client();
                Connection plain = client()) {
            try (Statement s = inTransaction.createStatement()) {
                s.execute("START TRANSACTION");
                s.executeQuery("SELECT name FROM items WHERE id = 2").close();
            }
            try (Statement s = withVariable.createStatement()) {
                s.execute("SET @picked = 7");
            }
            try (Statement s = plain.createStatement()) {
                s.executeQuery("SELECT id FROM far").close();
            }

            List<Map<String, String>> sessions = rows(admin, "SELECT * FROM stats_sessions WHERE user = 'app'");
            assertThat(sessions).hasSizeGreaterThanOrEqualTo(3);
            assertThat(sessions)
                    .anySatisfy(r -> {
                        assertThat(r.get("pinned")).isEqualTo("1");
                        assertThat(r.get("pin_reasons")).contains("open transaction");
                        assertThat(number(r, "backend_connections")).isPositive();
                        assertThat(r.get("schema")).isEqualTo(SCHEMA);
                        assertThat(r.get("client")).contains("127.0.0.1");
                    })
                    .anySatisfy(r -> {
                        assertThat(r.get("pinned")).isEqualTo("1");
                        assertThat(r.get("pin_reasons")).contains("user variable");
                    })
                    .anySatisfy(r -> {
                        assertThat(r.get("pinned")).isEqualTo("0");
                        assertThat(r.get("pin_reasons")).isNull();
                        assertThat(number(r, "backend_connections")).isZero();
                    });

            Map<String, String> connections =
                    rows(admin, "SELECT * FROM stats_connections").get(0);
            assertThat(number(connections, "client_connections")).isGreaterThanOrEqualTo(3);
            assertThat(number(connections, "pinned_sessions")).isGreaterThanOrEqualTo(2);
            assertThat(number(connections, "backend_connections_held")).isGreaterThanOrEqualTo(2);
            assertThat(number(connections, "backend_connections_open")).isGreaterThanOrEqualTo(2);
            assertThat(Double.parseDouble(connections.get("clients_per_backend_connection")))
                    .isPositive();
            try (Statement s = inTransaction.createStatement()) {
                s.execute("ROLLBACK");
            }
        }
    }

    @Test
    void offlineSoftServerTakesNoNewStatementsUntilOnlineAgain() throws Exception {
        String far = shard20.address();
        try (Connection admin = admin(Driver.MYSQL);
                Connection c = client();
                Statement s = c.createStatement();
                Statement a = admin.createStatement()) {
            assertThat(rows(admin, "SELECT hostgroup, address, role, status FROM runtime_servers"))
                    .extracting(r -> r.get("hostgroup") + " " + r.get("address") + " " + r.get("status"))
                    .contains("10 " + shard10.address() + " ONLINE", "20 " + far + " ONLINE");
            try {
                assertThat(a.executeUpdate("UPDATE runtime_servers SET status = 'OFFLINE_SOFT' WHERE hostgroup = 20"
                                + " AND address = '" + far + "'"))
                        .isEqualTo(1);
                assertThat(rows(admin, "SELECT status FROM runtime_servers WHERE hostgroup = 20"))
                        .extracting(r -> r.get("status"))
                        .containsExactly("OFFLINE_SOFT");
                assertThatThrownBy(() -> s.executeQuery("SELECT id FROM far").close())
                        .isInstanceOfSatisfying(
                                SQLException.class,
                                e -> assertThat(e.getErrorCode()).isEqualTo(9002));
                try (ResultSet rs = s.executeQuery("SELECT name FROM items WHERE id = 1")) {
                    assertThat(rs.next()).as("hostgroup 10 still serves").isTrue();
                }
            } finally {
                a.executeUpdate("UPDATE runtime_servers SET status = 'ONLINE' WHERE hostgroup = 20");
            }
            try (ResultSet rs = s.executeQuery("SELECT id FROM far")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(20);
            }
            assertThatThrownBy(() -> a.executeUpdate("UPDATE runtime_servers SET weight = 2"))
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo(1288));
            assertThatThrownBy(() -> a.executeUpdate("UPDATE runtime_servers SET status = 'ASLEEP'"))
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo(1366));
            assertThatThrownBy(() -> a.executeUpdate("DELETE FROM runtime_servers"))
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo(1288));
        }
    }

    @Test
    void purgeCacheMakesTheNextReadGoToTheBackend() throws Exception {
        try (Connection admin = admin(Driver.MARIADB);
                Connection c = client();
                Statement s = c.createStatement();
                Statement a = admin.createStatement()) {
            String value = name(s, 3);
            int round = 0;
            for (String purge : List.of(
                    "PURGE CACHE TABLE shop.items", "PURGE CACHE RULE 1", "PURGE CACHE SCHEMA shop", "PURGE CACHE")) {
                servedFromCache(admin, s, 3);
                Map<String, String> total =
                        rows(admin, "SELECT * FROM stats_cache").get(0);
                assertThat(total.get("rule_id")).isNull();
                assertThat(total.get("enabled")).isEqualTo("1");
                assertThat(number(total, "entries")).isPositive();
                String changed = "v" + ++round;
                try (Connection d = direct(shard10);
                        Statement ds = d.createStatement()) {
                    ds.executeUpdate("UPDATE items SET name = '" + changed + "' WHERE id = 3"); // behind the router
                }
                assertThat(name(s, 3)).as("cached before " + purge).isEqualTo(value);
                long misses =
                        number(rows(admin, "SELECT misses FROM stats_cache").get(0), "misses");
                assertThat(a.executeUpdate(purge)).as(purge).isPositive();
                assertThat(name(s, 3)).as("read after " + purge).isEqualTo(changed);
                assertThat(number(rows(admin, "SELECT misses FROM stats_cache").get(0), "misses"))
                        .isEqualTo(misses + 1);
                value = changed;
            }
            assertThat(rows(admin, "SELECT rule_id, hits, stores FROM stats_cache WHERE rule_id = 1"))
                    .singleElement()
                    .satisfies(r -> {
                        assertThat(number(r, "stores")).isPositive();
                        assertThat(number(r, "hits")).isGreaterThanOrEqualTo(4);
                    });
            assertThatThrownBy(() -> a.executeUpdate("PURGE CACHE TABLE items"))
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo(1064));
            assertThat(rows(admin, "SHOW TABLES"))
                    .extracting(r -> r.values().iterator().next())
                    .contains("runtime_servers", "stats_sessions", "stats_cache");
        }
    }

    /**
     * Reads row {@code id} until a read is a cache hit: a miss's result may be stored only after
     * the client has read it (the router stores it on its event loop when the relay ends), so
     * the read right after a miss may miss again. The deadline is a hang guard only.
     */
    private static void servedFromCache(Connection admin, Statement s, int id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            long hits = number(rows(admin, "SELECT hits FROM stats_cache").get(0), "hits");
            name(s, id);
            if (number(rows(admin, "SELECT hits FROM stats_cache").get(0), "hits") > hits) {
                return;
            }
            assertThat(System.nanoTime())
                    .as("row %d never served from the cache", id)
                    .isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private static String name(Statement s, int id) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT name FROM items WHERE id = " + id)) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }
}
