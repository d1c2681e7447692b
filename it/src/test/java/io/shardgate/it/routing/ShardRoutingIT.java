package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.sharding.rule.KeyedStrategy;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real MariaDB shards (hostgroups 10 and 20) behind one router with sharding rules: statements
 * reach the shard the rules name and only that one (checked on each shard directly), transactions
 * spanning both shards commit and roll back on both, EXPLAIN SHARDGATE shows the plan, and what
 * cannot be answered correctly is refused with ERR 1235.
 */
class ShardRoutingIT {
    private static final String SCHEMA = "shop";
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final String BACKEND_USER = "shardgate";
    private static final String BACKEND_PASSWORD = "sg-secret";

    @TempDir
    static Path dataDir;

    private static MariaDbServer shard10;
    private static MariaDbServer shard20;
    private static Shardgate router;
    private static RuleSnapshot rules;

    @BeforeAll
    static void start() throws Exception {
        shard10 = shard();
        shard20 = shard();
        String yaml = String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, http_port: 0, data_dir: \""
                        + Files.createDirectories(dataDir.resolve("router")) + "\"}",
                "users: [{name: " + USER + ", password: " + PASSWORD + "}]",
                "hostgroups:",
                "  - {id: 10, writer: \"" + shard10.address() + "\", user: " + BACKEND_USER + ", password: "
                        + BACKEND_PASSWORD + "}",
                "  - {id: 20, writer: \"" + shard20.address() + "\", user: " + BACKEND_USER + ", password: "
                        + BACKEND_PASSWORD + "}",
                "schemas:",
                "  - name: " + SCHEMA,
                "    default_hostgroup: 10",
                "    tables:",
                "      - {name: sbtest2, strategy: table, hostgroup: 20}",
                "      - {name: accounts, strategy: hash, column: id, buckets: 4, hostgroups: {10: \"0-1\", 20: \"2-3\"}}",
                "      - {name: orders, strategy: hash, column: customer_id, buckets: 8, hostgroups: {10: \"0-3\", 20: \"4-7\"}}",
                "query_rules:",
                "  - {match_digest: \"^DELETE FROM `?audit\", error: \"audit rows are kept\"}",
                "");
        RouterConfig config = RouterConfig.parse(yaml);
        rules = config.rules(1);
        router = Shardgate.start(config);
        for (MariaDbServer shard : List.of(shard10, shard20)) {
            try (Connection c = direct(shard);
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE accounts (id BIGINT PRIMARY KEY, owner VARCHAR(40), balance INT)");
            }
        }
    }

    private static MariaDbServer shard() {
        return MariaDbServer.builder()
                .database(SCHEMA)
                .user(BACKEND_USER, BACKEND_PASSWORD)
                .innodbBufferPoolSize("64M")
                .start();
    }

    @AfterAll
    static void stop() {
        if (router != null) {
            router.close();
        }
        for (MariaDbServer shard : new MariaDbServer[] {shard10, shard20}) {
            if (shard != null) {
                shard.close();
            }
        }
    }

    private static Connection proxied() throws SQLException {
        return Driver.MARIADB.connect(router.mysqlPort(), SCHEMA, USER, PASSWORD, Map.of("socketTimeout", "60000"));
    }

    private static Connection direct(MariaDbServer shard) throws SQLException {
        return Driver.MARIADB.connect(shard.port(), SCHEMA, BACKEND_USER, BACKEND_PASSWORD);
    }

    private static MariaDbServer shardOf(long id) {
        int hostgroup = ((KeyedStrategy) rules.schema(SCHEMA).listed("accounts").strategy()).hostgroupOf(id);
        return hostgroup == 10 ? shard10 : shard20;
    }

    private static List<Long> ids(MariaDbServer shard, String table) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Connection c = direct(shard);
                ResultSet rs = c.createStatement().executeQuery("SELECT id FROM " + table + " ORDER BY id")) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    @Test
    void aTableOfTheTableStrategyLivesOnlyOnItsHostgroup() throws SQLException {
        try (Connection c = proxied();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sbtest2 (id INT PRIMARY KEY, k INT)");
            s.executeUpdate("INSERT INTO sbtest2 VALUES (1, 10), (2, 20)");
            try (ResultSet rs = s.executeQuery("SELECT SUM(k) FROM sbtest2")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(30);
            }
        }
        assertThat(ids(shard20, "sbtest2")).containsExactly(1L, 2L);
        try (Connection c = proxied();
                ResultSet rs = c.createStatement().executeQuery("SHOW TABLES")) {
            List<String> tables = new ArrayList<>();
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
            // sbtest2 lives on hostgroup 20 only, accounts on both: the logical schema lists each once
            assertThat(tables)
                    .contains("accounts", "sbtest2")
                    .doesNotHaveDuplicates()
                    .isSorted();
        }
        try (Connection c = direct(shard10)) {
            assertThat(c.getMetaData().getTables(SCHEMA, null, "sbtest2", null).next())
                    .as("sbtest2 must not exist on hostgroup 10")
                    .isFalse();
        }
    }

    @Test
    void pointStatementsOnAHashTableGoToTheOwningShardOnly() throws SQLException {
        List<Long> keys = List.of(101L, 102L, 103L, 104L, 105L, 106L, 107L, 108L);
        try (Connection c = proxied();
                Statement s = c.createStatement()) {
            for (long id : keys) {
                assertThat(s.executeUpdate(
                                "INSERT INTO accounts (id, owner, balance) VALUES (" + id + ", 'owner" + id + "', 5)"))
                        .isEqualTo(1);
            }
            for (long id : keys) {
                try (ResultSet rs = s.executeQuery("SELECT owner FROM accounts WHERE id = " + id)) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("owner" + id);
                }
                assertThat(s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = " + id))
                        .isEqualTo(1);
            }
        }
        for (long id : keys) {
            MariaDbServer owner = shardOf(id);
            MariaDbServer other = owner == shard10 ? shard20 : shard10;
            assertThat(ids(owner, "accounts")).contains(id);
            assertThat(ids(other, "accounts")).doesNotContain(id);
        }
        assertThat(ids(shard10, "accounts")).isNotEmpty();
        assertThat(ids(shard20, "accounts")).isNotEmpty();
    }

    @Test
    void preparedStatementsRouteEachExecutionByItsBoundKey() throws SQLException {
        List<Long> keys = List.of(401L, 402L, 403L, 404L, 405L, 406L);
        for (Driver driver : Driver.values()) {
            try (Connection c =
                    driver.connect(router.mysqlPort(), SCHEMA, USER, PASSWORD, Map.of("useServerPrepStmts", "true"))) {
                try (var insert = c.prepareStatement("INSERT INTO accounts (id, owner, balance) VALUES (?, ?, ?)");
                        var select = c.prepareStatement("SELECT owner, balance FROM accounts WHERE id = ?");
                        var delete = c.prepareStatement("DELETE FROM accounts WHERE id = ?")) {
                    for (long id : keys) {
                        insert.setLong(1, id);
                        insert.setString(2, driver + "-" + id);
                        insert.setInt(3, 7);
                        assertThat(insert.executeUpdate()).isEqualTo(1);
                    }
                    for (long id : keys) {
                        MariaDbServer owner = shardOf(id);
                        assertThat(ids(owner, "accounts")).contains(id);
                        assertThat(ids(owner == shard10 ? shard20 : shard10, "accounts"))
                                .doesNotContain(id);
                        select.setLong(1, id);
                        try (ResultSet rs = select.executeQuery()) {
                            assertThat(rs.next()).isTrue();
                            assertThat(rs.getString(1)).isEqualTo(driver + "-" + id);
                            assertThat(rs.getInt(2)).isEqualTo(7);
                        }
                        delete.setLong(1, id);
                        assertThat(delete.executeUpdate()).isEqualTo(1);
                    }
                }
            }
        }
    }

    @Test
    void aTransactionOverBothShardsRollsBackAndCommitsOnBoth() throws SQLException {
        long a = firstKeyOn(shard10, 200);
        long b = firstKeyOn(shard20, 200);
        try (Connection c = proxied();
                Statement s = c.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("INSERT INTO accounts (id, owner, balance) VALUES (" + a + ", 'tx', 1)");
            s.executeUpdate("INSERT INTO accounts (id, owner, balance) VALUES (" + b + ", 'tx', 1)");
            s.execute("ROLLBACK");
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM accounts WHERE id = " + a)) {
                rs.next();
                assertThat(rs.getLong(1)).isZero();
            }
            assertThat(ids(shard10, "accounts")).doesNotContain(a);
            assertThat(ids(shard20, "accounts")).doesNotContain(b);

            c.setAutoCommit(false);
            s.executeUpdate("INSERT INTO accounts (id, owner, balance) VALUES (" + a + ", 'tx', 1)");
            s.executeUpdate("INSERT INTO accounts (id, owner, balance) VALUES (" + b + ", 'tx', 1)");
            // uncommitted: invisible to other sessions
            assertThat(ids(shard20, "accounts")).doesNotContain(b);
            c.commit();
            c.setAutoCommit(true);
        }
        assertThat(ids(shard10, "accounts")).contains(a);
        assertThat(ids(shard20, "accounts")).contains(b);
    }

    @Test
    void aBeginInsideATransactionCommitsItOnEveryShardItReached() throws SQLException {
        long a = firstKeyOn(shard10, 400);
        long b = firstKeyOn(shard20, 400);
        try (Connection c = proxied();
                Statement s = c.createStatement()) {
            for (String begin : List.of("BEGIN", "START TRANSACTION WITH CONSISTENT SNAPSHOT")) {
                s.execute("BEGIN");
                s.executeUpdate("INSERT INTO accounts (id, owner, balance) VALUES (" + a + ", 'implicit', 1)");
                s.executeUpdate("INSERT INTO accounts (id, owner, balance) VALUES (" + b + ", 'implicit', 1)");
                assertThat(ids(shard20, "accounts")).doesNotContain(b);
                s.execute(begin); // MySQL: an implicit COMMIT of the open transaction, then a new one
                assertThat(ids(shard10, "accounts")).as(begin).contains(a);
                assertThat(ids(shard20, "accounts")).as(begin).contains(b);
                // the new transaction is a new one on both shards: its rollback undoes only its own work
                s.executeUpdate("UPDATE accounts SET balance = 2 WHERE id IN (" + a + ", " + b + ")");
                s.execute("ROLLBACK");
                try (ResultSet rs =
                        s.executeQuery("SELECT SUM(balance) FROM accounts WHERE id IN (" + a + ", " + b + ")")) {
                    rs.next();
                    assertThat(rs.getLong(1)).as(begin).isEqualTo(2);
                }
                s.executeUpdate("DELETE FROM accounts WHERE id IN (" + a + ", " + b + ")");
            }
        }
        assertThat(ids(shard10, "accounts")).doesNotContain(a);
        assertThat(ids(shard20, "accounts")).doesNotContain(b);
        // BEGIN as a server-side prepared statement (as sysbench sends it) does the same
        try (Connection c = Driver.MARIADB.connect(
                        router.mysqlPort(), SCHEMA, USER, PASSWORD, Map.of("useServerPrepStmts", "true"));
                PreparedStatement begin = c.prepareStatement("BEGIN");
                PreparedStatement insert =
                        c.prepareStatement("INSERT INTO accounts (id, owner, balance) VALUES (?, 'prepared', 1)");
                Statement s = c.createStatement()) {
            begin.execute();
            insert.setLong(1, a);
            insert.executeUpdate();
            insert.setLong(1, b);
            insert.executeUpdate();
            begin.execute();
            assertThat(ids(shard10, "accounts")).contains(a);
            assertThat(ids(shard20, "accounts")).contains(b);
            s.executeUpdate("DELETE FROM accounts WHERE id = " + b);
            s.execute("ROLLBACK");
            assertThat(ids(shard20, "accounts"))
                    .as("the new transaction's delete rolled back")
                    .contains(b);
            s.executeUpdate("DELETE FROM accounts WHERE id IN (" + a + ", " + b + ")");
        }
        assertThat(ids(shard20, "accounts")).doesNotContain(b);
    }

    @Test
    void aTransactionBeginsAndEndsOnlyOnTheShardsItsStatementsReach() throws SQLException {
        long b = firstKeyOn(shard20, 300);
        long[] before = {
            status(shard10, "Com_begin"),
            status(shard10, "Com_commit"),
            status(shard20, "Com_begin"),
            status(shard20, "Com_commit")
        };
        try (Connection c = proxied();
                Statement s = c.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("INSERT INTO accounts (id, owner, balance) VALUES (" + b + ", 'one shard', 1)");
            try (ResultSet rs = s.executeQuery("SELECT balance FROM accounts WHERE id = " + b)) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(1);
            }
            assertThat(ids(shard20, "accounts")).doesNotContain(b); // not committed yet
            s.execute("COMMIT");
            // a transaction with no statement begins and ends nowhere
            s.execute("BEGIN");
            s.execute("COMMIT");
        }
        // the same with BEGIN and COMMIT as server-side prepared statements (as sysbench sends them)
        try (Connection c = Driver.MARIADB.connect(
                        router.mysqlPort(), SCHEMA, USER, PASSWORD, Map.of("useServerPrepStmts", "true"));
                PreparedStatement begin = c.prepareStatement("BEGIN");
                PreparedStatement commit = c.prepareStatement("COMMIT");
                PreparedStatement update =
                        c.prepareStatement("UPDATE accounts SET balance = balance + 1 WHERE id = ?")) {
            begin.execute();
            update.setLong(1, b);
            assertThat(update.executeUpdate()).isEqualTo(1);
            commit.execute();
            begin.execute();
            commit.execute();
        }
        try {
            assertThat(ids(shard20, "accounts")).contains(b);
            // hostgroup 10 is the schema's home: it used to run each BEGIN (twice) and each COMMIT too
            assertThat(new long[] {
                        status(shard10, "Com_begin") - before[0],
                        status(shard10, "Com_commit") - before[1],
                        status(shard20, "Com_begin") - before[2],
                        status(shard20, "Com_commit") - before[3]
                    })
                    .containsExactly(0, 0, 2, 2);
        } finally {
            try (Connection c = direct(shard20);
                    Statement s = c.createStatement()) {
                s.executeUpdate("DELETE FROM accounts WHERE id = " + b);
            }
        }
    }

    private static long status(MariaDbServer shard, String variable) throws SQLException {
        try (Connection c = direct(shard);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE '" + variable + "'")) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(2);
        }
    }

    private static long firstKeyOn(MariaDbServer shard, long from) {
        long id = from;
        while (shardOf(id) != shard) {
            id++;
        }
        return id;
    }

    @Test
    void multiShardStatementsRunOnEveryShardAndMerge() throws SQLException {
        try (Connection c = proxied();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT NOT NULL, amount DECIMAL(10,2))");
            StringBuilder insert = new StringBuilder("INSERT INTO orders (id, customer_id, amount) VALUES ");
            for (int i = 1; i <= 40; i++) {
                insert.append(i == 1 ? "" : ", ")
                        .append("(")
                        .append(i)
                        .append(", ")
                        .append(i % 10)
                        .append(", ")
                        .append(i)
                        .append(".50)");
            }
            assertThat(s.executeUpdate(insert.toString())).isEqualTo(40);
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(amount), MIN(id), MAX(id) FROM orders")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(40);
                assertThat(rs.getBigDecimal(2)).isEqualByComparingTo("840.00");
                assertThat(rs.getInt(3)).isEqualTo(1);
                assertThat(rs.getInt(4)).isEqualTo(40);
            }
            try (ResultSet rs = s.executeQuery("SELECT id FROM orders ORDER BY id DESC LIMIT 3, 4")) {
                List<Integer> ids = new ArrayList<>();
                while (rs.next()) {
                    ids.add(rs.getInt(1));
                }
                assertThat(ids).containsExactly(37, 36, 35, 34);
            }
            try (ResultSet rs = s.executeQuery(
                    "SELECT customer_id, COUNT(*) FROM orders GROUP BY customer_id ORDER BY customer_id")) {
                int groups = 0;
                while (rs.next()) {
                    assertThat(rs.getInt(1)).isEqualTo(groups);
                    assertThat(rs.getLong(2)).isEqualTo(4);
                    groups++;
                }
                assertThat(groups).isEqualTo(10);
            }
            assertThat(s.executeUpdate("UPDATE orders SET amount = amount + 1 WHERE amount > 20"))
                    .isEqualTo(21); // 20.50 ... 40.50
            s.execute("BEGIN");
            assertThat(s.executeUpdate("DELETE FROM orders WHERE id > 0")).isEqualTo(40);
            s.execute("ROLLBACK");
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM orders")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(40);
            }
        }
        for (Driver driver : Driver.values()) {
            try (Connection c = driver.connect(
                            router.mysqlPort(), SCHEMA, USER, PASSWORD, Map.of("useServerPrepStmts", "true"));
                    var select = c.prepareStatement(
                            "SELECT id, amount FROM orders WHERE customer_id IN (?, ?) ORDER BY id DESC LIMIT ?");
                    var count = c.prepareStatement("SELECT COUNT(*), AVG(amount) FROM orders WHERE id <= ?")) {
                select.setInt(1, 1);
                select.setInt(2, 2);
                select.setInt(3, 5);
                List<Integer> ids = new ArrayList<>();
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getInt(1));
                    }
                }
                assertThat(ids).as(driver.name()).containsExactly(32, 31, 22, 21, 12);
                count.setInt(1, 10);
                try (ResultSet rs = count.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isEqualTo(10);
                    assertThat(rs.getBigDecimal(2)).isEqualByComparingTo("6.000000"); // 1.50 ... 10.50
                }
            }
        }
        List<Long> on10 = ids(shard10, "orders");
        List<Long> on20 = ids(shard20, "orders");
        assertThat(on10).isNotEmpty().doesNotContainAnyElementsOf(on20);
        assertThat(on10.size() + on20.size()).isEqualTo(40);
    }

    @Test
    void explainShardgateShowsTheTargetAndItsSql() throws SQLException {
        long id = firstKeyOn(shard20, 300);
        try (Connection c = proxied();
                ResultSet rs = c.createStatement()
                        .executeQuery("EXPLAIN SHARDGATE SELECT owner FROM accounts WHERE id = " + id)) {
            List<String> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(rs.getString("step") + "|" + rs.getString("hostgroup") + "|" + rs.getString("detail"));
            }
            assertThat(rows)
                    .anySatisfy(r -> assertThat(r).startsWith("plan|null|").contains("ByKey"));
            assertThat(rows).contains("target|20|SELECT owner FROM accounts WHERE id = " + id);
        }
    }

    /** The plan rows of {@code EXPLAIN SHARDGATE statement}. */
    private static List<String> explain(Connection c, String statement) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (ResultSet rs = c.createStatement().executeQuery("EXPLAIN SHARDGATE " + statement)) {
            while (rs.next()) {
                rows.add(rs.getString("step") + "|" + rs.getString("hostgroup") + "|" + rs.getString("detail"));
            }
        }
        return rows;
    }

    @Test
    void explainShardgateShowsComputedItemsDerivedTablesAndUnions() throws SQLException {
        try (Connection c = proxied()) {
            assertThat(explain(c, "SELECT SUM(balance)/COUNT(*) FROM accounts"))
                    .anySatisfy(r -> assertThat(r)
                            .startsWith("plan|null|")
                            .contains("\"computed\":[\"#1 = (hidden#1 / hidden#2)\"]"))
                    // the shards type the computed item without evaluating it
                    .contains("target|10|SELECT IF(FALSE, SUM(balance) / COUNT(*), NULL), SUM(balance), COUNT(*)"
                            + " FROM accounts");
            assertThat(explain(c, "SELECT COUNT(*) FROM (SELECT owner FROM accounts WHERE id = 3 GROUP BY owner) t"))
                    .anySatisfy(r -> assertThat(r).startsWith("plan|null|").contains("\"one_shard_only\""));
            assertThat(explain(c, "SELECT id FROM accounts UNION SELECT customer_id FROM orders ORDER BY id LIMIT 3"))
                    .anySatisfy(r -> assertThat(r)
                            .startsWith("plan|null|")
                            .contains("\"distinct\":true")
                            .contains("\"order_by\":[\"#1 ASC\"]"))
                    .hasSize(5); // digest, rules, plan, two targets
        }
    }

    @Test
    void whatCannotBeAnsweredCorrectlyIsRefusedWithTheReason() throws SQLException {
        try (Connection c = proxied();
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.executeQuery("SELECT * FROM accounts a JOIN sbtest2 b ON a.id = b.k"))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(1235);
                        assertThat(e.getMessage()).contains("accounts");
                    });
            assertThatThrownBy(() -> s.executeUpdate("DELETE FROM audit WHERE id = 1"))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(1148);
                        assertThat(e.getMessage()).contains("audit rows are kept");
                    });
            // the session stays usable
            try (ResultSet rs = s.executeQuery("SELECT 1")) {
                assertThat(rs.next()).isTrue();
            }
        }
    }

    @Test
    void valuesTheMergeCannotComputeAsMySqlWouldAreRefusedAndOverflowsGetMySqlsCode() throws SQLException {
        long onShard10 = firstKeyOn(shard10, 910001);
        long onShard20 = firstKeyOn(shard20, 910001);
        String both = "(" + onShard10 + ", " + onShard20 + ")";
        try (Connection c = proxied();
                Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO accounts (id, owner, balance) VALUES (" + onShard10 + ", 'x1', 1), ("
                    + onShard20 + ", 'x2', 2)");
            try {
                // MySQL turns the text into a number; which digits it keeps is not the merge's to guess
                assertThatThrownBy(() -> s.executeQuery("SELECT MAX(owner) + 1 FROM accounts WHERE id IN " + both))
                        .isInstanceOfSatisfying(SQLException.class, e -> {
                            assertThat(e.getErrorCode()).isEqualTo(1235);
                            assertThat(e.getSQLState()).isEqualTo("42000");
                            assertThat(e.getMessage()).contains("not a number");
                        });
                // one row on each shard: each shard's product fits, the merged one (2 x ...) overflows
                // BIGINT, which MySQL answers with 1690 on one server, and so does the merge
                assertThatThrownBy(() -> s.executeQuery(
                                "SELECT COUNT(*) * 9223372036854775807 FROM accounts WHERE id IN " + both))
                        .isInstanceOfSatisfying(SQLException.class, e -> {
                            assertThat(e.getErrorCode()).isEqualTo(1690);
                            assertThat(e.getSQLState()).isEqualTo("22003");
                        });
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*) * 2 FROM accounts WHERE id IN " + both)) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isEqualTo(4);
                }
            } finally {
                s.executeUpdate("DELETE FROM accounts WHERE id IN " + both);
            }
        }
    }
}
