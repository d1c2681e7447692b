package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.Driver;
import io.shardgate.sharding.key.SnowflakeIds;
import io.shardgate.sharding.rule.KeyedStrategy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Key generation through the router on two real MariaDB shards: an INSERT into a table declared
 * with {@code key_generation: snowflake} that omits its key (or gives NULL / DEFAULT) gets a
 * snowflake id of this router's node, the row lands on the shard that id names (and only there),
 * and the client sees the id as MySQL would show an AUTO_INCREMENT value: in the OK packet
 * ({@code getGeneratedKeys}) and from {@code SELECT LAST_INSERT_ID()}, with both drivers, text and
 * server-side prepared.
 */
class KeyGenerationIT {
    /** Rows of the multi-row INSERT: enough that their consecutive ids reach both shards. */
    private static final int ROWS = 24;

    @TempDir
    static Path dataDir;

    private static ShardedCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShardedCluster(
                dataDir,
                "keys",
                2,
                List.of(
                        "{name: members, strategy: hash, column: id, buckets: 8, hostgroups: {10: \"0-3\", 20: \"4-7\"},"
                                + " key_generation: snowflake}",
                        "{name: visits, strategy: range, column: id, ranges: [{below: 1000, hostgroup: 10},"
                                + " {hostgroup: 20}], key_generation: snowflake}"),
                List.of());
        cluster.onEveryShard(
                "CREATE TABLE members (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL)",
                "CREATE TABLE visits (id BIGINT PRIMARY KEY, page VARCHAR(40))");
        cluster.onShard(10, "CREATE TABLE audit (n INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(20))");
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    static List<Arguments> clients() {
        List<Arguments> out = new ArrayList<>();
        for (Driver driver : Driver.values()) {
            out.add(Arguments.of(driver, false));
            out.add(Arguments.of(driver, true));
        }
        return out;
    }

    private static Connection connect(Driver driver, boolean serverPrepared) throws SQLException {
        return cluster.proxied(driver, Map.of("useServerPrepStmts", Boolean.toString(serverPrepared)));
    }

    private static int hostgroupOf(String table, long id) {
        return ((KeyedStrategy) cluster.rules.schema("keys").listed(table).strategy()).hostgroupOf(id);
    }

    /** The shards (by hostgroup) whose {@code table} has a row with {@code id}, asked directly. */
    private static List<Integer> holders(String table, long id) throws SQLException {
        List<Integer> out = new ArrayList<>();
        for (int hg : List.of(10, 20)) {
            try (Connection c = cluster.direct(hg);
                    PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE id = ?")) {
                s.setLong(1, id);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) == 1) {
                        out.add(hg);
                    }
                }
            }
        }
        return out;
    }

    private static long lastInsertId(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT LAST_INSERT_ID()")) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }

    private static List<Long> keys(Statement s) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (ResultSet rs = s.getGeneratedKeys()) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{0} serverPrepared={1}")
    @MethodSource("clients")
    void anInsertWithoutTheKeyGetsASnowflakeIdRoutedByIt(Driver driver, boolean serverPrepared) throws SQLException {
        try (Connection c = connect(driver, serverPrepared);
                PreparedStatement insert =
                        c.prepareStatement("INSERT INTO members (name) VALUES (?)", Statement.RETURN_GENERATED_KEYS)) {
            insert.setString(1, "ann-" + driver + serverPrepared);
            assertThat(insert.executeUpdate()).isEqualTo(1);
            List<Long> keys = keys(insert);
            assertThat(keys).hasSize(1);
            long id = keys.get(0);
            assertThat(SnowflakeIds.nodeOf(id)).isEqualTo(7);
            assertThat(Math.abs(SnowflakeIds.millisOf(id) - System.currentTimeMillis()))
                    .isLessThan(600_000);
            assertThat(lastInsertId(c)).isEqualTo(id);
            assertThat(holders("members", id)).containsExactly(hostgroupOf("members", id));
            try (PreparedStatement read = c.prepareStatement("SELECT name FROM members WHERE id = ?")) {
                read.setLong(1, id);
                try (ResultSet rs = read.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("ann-" + driver + serverPrepared);
                }
            }
            // a second execution of the same statement gets a new, larger id
            insert.setString(1, "bob");
            insert.executeUpdate();
            long second = keys(insert).get(0);
            assertThat(second).isGreaterThan(id);
            assertThat(lastInsertId(c)).isEqualTo(second);
        }
    }

    @ParameterizedTest(name = "{0} serverPrepared={1}")
    @MethodSource("clients")
    void aMultiRowInsertGetsConsecutiveIdsAndLastInsertIdIsTheFirst(Driver driver, boolean serverPrepared)
            throws SQLException {
        StringBuilder sql = new StringBuilder("INSERT INTO members (name) VALUES ");
        for (int i = 0; i < ROWS; i++) {
            sql.append(i == 0 ? "" : ", ").append("(?)");
        }
        try (Connection c = connect(driver, serverPrepared);
                PreparedStatement insert = c.prepareStatement(sql.toString(), Statement.RETURN_GENERATED_KEYS)) {
            for (int i = 0; i < ROWS; i++) {
                insert.setString(i + 1, "row" + i);
            }
            assertThat(insert.executeUpdate()).isEqualTo(ROWS);
            List<Long> keys = keys(insert);
            long first = lastInsertId(c);
            assertThat(keys).isNotEmpty();
            assertThat(keys.get(0)).isEqualTo(first);
            if (driver == Driver.MYSQL) {
                // Connector/J derives the other rows' keys from the first: they must be the real ones
                assertThat(keys).hasSize(ROWS);
            }
            Set<Integer> used = new HashSet<>();
            for (int i = 0; i < ROWS; i++) {
                long id = first + i;
                if (i < keys.size()) {
                    assertThat(keys.get(i)).isEqualTo(id);
                }
                int hg = hostgroupOf("members", id);
                used.add(hg);
                assertThat(holders("members", id)).as("row %d, id %d", i, id).containsExactly(hg);
            }
            assertThat(used).as("24 consecutive ids hash to both shards").containsExactlyInAnyOrder(10, 20);
        }
    }

    @Test
    void nullAndDefaultAskForAKeyAndAGivenKeyIsKept() throws SQLException {
        try (Connection c = connect(Driver.MARIADB, false);
                Statement s = c.createStatement()) {
            assertThat(s.executeUpdate(
                            "INSERT INTO members (id, name) VALUES (NULL, 'n'), (DEFAULT, 'd'), (42, 'given')",
                            Statement.RETURN_GENERATED_KEYS))
                    .isEqualTo(3);
            long first = lastInsertId(c);
            assertThat(SnowflakeIds.nodeOf(first)).isEqualTo(7);
            assertThat(holders("members", first)).containsExactly(hostgroupOf("members", first));
            assertThat(holders("members", first + 1)).containsExactly(hostgroupOf("members", first + 1));
            assertThat(holders("members", 42)).containsExactly(hostgroupOf("members", 42));
            try (ResultSet rs = s.executeQuery(
                    "SELECT name FROM members WHERE id IN (" + first + ", " + (first + 1) + ", 42) ORDER BY id")) {
                List<String> names = new ArrayList<>();
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
                assertThat(names).containsExactly("given", "n", "d");
            }
        }
    }

    @Test
    void aPreparedNullKeyIsGeneratedAndABoundKeyKept() throws SQLException {
        try (Connection c = connect(Driver.MYSQL, true);
                PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO members (id, name) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS)) {
            insert.setNull(1, java.sql.Types.BIGINT);
            insert.setString(2, "generated");
            insert.executeUpdate();
            long generated = keys(insert).get(0);
            assertThat(SnowflakeIds.nodeOf(generated)).isEqualTo(7);
            assertThat(holders("members", generated)).containsExactly(hostgroupOf("members", generated));
            insert.setLong(1, 4242);
            insert.setString(2, "bound");
            insert.executeUpdate();
            assertThat(holders("members", 4242)).containsExactly(hostgroupOf("members", 4242));
            // MySQL: an explicit key is no generated value; LAST_INSERT_ID() stays the generated one
            assertThat(lastInsertId(c)).isEqualTo(generated);
        }
    }

    @Test
    void aRangeTableGetsIdsInItsUnboundedLastRange() throws SQLException {
        try (Connection c = connect(Driver.MARIADB, false);
                Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO visits (page) VALUES ('/'), ('/about')");
            long first = lastInsertId(c);
            assertThat(holders("visits", first)).containsExactly(20);
            assertThat(holders("visits", first + 1)).containsExactly(20);
        }
    }

    @Test
    void lastInsertIdAnswersWithTheAliasAndSessionVariables() throws SQLException {
        try (Connection c = connect(Driver.MARIADB, false);
                Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO members (name) VALUES ('alias')");
            long id = lastInsertId(c);
            for (String query :
                    List.of("select last_insert_id() AS id", "SELECT @@identity", "SELECT @@last_insert_id;")) {
                try (ResultSet rs = s.executeQuery(query)) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).as(query).isEqualTo(id);
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT LAST_INSERT_ID() AS `the id`")) {
                assertThat(rs.getMetaData().getColumnLabel(1)).isEqualTo("the id");
            }
        }
    }

    @Test
    void lastInsertIdInsideAStatementIsTheGeneratedKeyAndRoutesByIt() throws SQLException {
        try (Connection c = connect(Driver.MYSQL, false);
                Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO members (name) VALUES ('parent')");
            long id = lastInsertId(c);
            // the classic MySQL idiom: the parent's id as another table's key
            s.executeUpdate("INSERT INTO visits (id, page) VALUES (LAST_INSERT_ID(), '/parent')");
            assertThat(holders("visits", id)).containsExactly(20);
            try (ResultSet rs = s.executeQuery("SELECT name FROM members WHERE id = LAST_INSERT_ID()")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("parent");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Driver.class)
    void aPreparedSelectLastInsertIdAnswersTheGeneratedKey(Driver driver) throws SQLException {
        try (Connection c = connect(driver, true);
                PreparedStatement insert =
                        c.prepareStatement("INSERT INTO members (name) VALUES (?)", Statement.RETURN_GENERATED_KEYS);
                PreparedStatement last = c.prepareStatement("SELECT LAST_INSERT_ID()");
                PreparedStatement identity = c.prepareStatement("SELECT @@identity")) {
            for (String name : List.of("first-" + driver, "second-" + driver)) {
                insert.setString(1, name);
                insert.executeUpdate();
                long generated = keys(insert).get(0);
                // server-side prepared (COM_STMT_EXECUTE, binary rows): the backend is handed the router's key
                for (PreparedStatement read : List.of(last, identity)) {
                    try (ResultSet rs = read.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getLong(1)).isEqualTo(generated);
                    }
                }
            }
        }
    }

    @Test
    void lastInsertIdInsideAnotherPreparedStatementIsRefusedNotGuessed() throws SQLException {
        // the refusal comes at COM_STMT_PREPARE (LAST_INSERT_ID() on several shards); the driver must
        // not hide it by falling back to a client-side statement
        try (Connection c = cluster.proxied(
                        Driver.MYSQL, Map.of("useServerPrepStmts", "true", "emulateUnsupportedPstmts", "false"));
                Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO members (name) VALUES ('refused')");
            assertThatThrownBy(() -> {
                        try (PreparedStatement read =
                                c.prepareStatement("SELECT name FROM members WHERE id = LAST_INSERT_ID()")) {
                            read.executeQuery().close();
                        }
                    })
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo(1235))
                    .hasMessageContaining("bind the value as a parameter");
            // the session goes on: the value bound as a parameter finds the row
            try (PreparedStatement byId = c.prepareStatement("SELECT name FROM members WHERE id = ?")) {
                byId.setLong(1, lastInsertId(c));
                try (ResultSet rs = byId.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("refused");
                }
            }
        }
    }

    @Test
    void anAutoIncrementOnABackendTakesLastInsertIdBack() throws SQLException {
        try (Connection c = connect(Driver.MARIADB, false);
                Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO members (name) VALUES ('before audit')");
            long generated = lastInsertId(c);
            s.executeUpdate("INSERT INTO members (id, name) VALUES (777, 'explicit')");
            assertThat(lastInsertId(c)).as("an explicit key changes nothing").isEqualTo(generated);
            s.executeUpdate("INSERT INTO audit (what) VALUES ('x')", Statement.RETURN_GENERATED_KEYS);
            long auto = keys(s).get(0);
            assertThat(auto).isNotEqualTo(generated);
            assertThat(lastInsertId(c))
                    .as("the unlisted table's AUTO_INCREMENT")
                    .isEqualTo(auto);
        }
    }

    @Test
    void explainShowsTheStatementWithAGeneratedKey() throws SQLException {
        try (Connection c = connect(Driver.MARIADB, false);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("EXPLAIN SHARDGATE INSERT INTO members (name) VALUES ('shown')")) {
            List<String> targets = new ArrayList<>();
            while (rs.next()) {
                if (rs.getString(1).startsWith("target")) {
                    targets.add(rs.getString(3));
                }
            }
            assertThat(targets).hasSize(1);
            assertThat(targets.get(0)).matches("INSERT INTO members \\(name, `id`\\) VALUES \\('shown', \\d+\\)");
        }
        assertThat(holders("members", 0)).isEmpty();
        try (Connection c = cluster.direct(10);
                ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM members WHERE name = 'shown'")) {
            rs.next();
            assertThat(rs.getLong(1)).as("EXPLAIN runs nothing").isZero();
        }
    }

    @Test
    void concurrentSessionsNeverShareAnId() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<Long>>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Driver driver = t % 2 == 0 ? Driver.MYSQL : Driver.MARIADB;
                boolean prepared = t >= 2;
                results.add(pool.submit(() -> {
                    List<Long> ids = new ArrayList<>();
                    try (Connection c = connect(driver, prepared);
                            PreparedStatement insert = c.prepareStatement(
                                    "INSERT INTO members (name) VALUES (?)", Statement.RETURN_GENERATED_KEYS)) {
                        for (int i = 0; i < 40; i++) {
                            insert.setString(1, "c" + i);
                            insert.executeUpdate();
                            ids.addAll(keys(insert));
                        }
                    }
                    return ids;
                }));
            }
            Set<Long> all = new HashSet<>();
            for (Future<List<Long>> f : results) {
                for (long id : f.get()) {
                    assertThat(all.add(id)).as("duplicate id %d", id).isTrue();
                }
            }
            assertThat(all).hasSize(160);
            long onShards = 0;
            for (int hg : List.of(10, 20)) {
                try (Connection c = cluster.direct(hg);
                        ResultSet rs =
                                c.createStatement().executeQuery("SELECT id FROM members WHERE name LIKE 'c%'")) {
                    while (rs.next()) {
                        assertThat(hostgroupOf("members", rs.getLong(1))).isEqualTo(hg);
                        onShards++;
                    }
                }
            }
            assertThat(onShards).isEqualTo(160);
        } finally {
            pool.shutdownNow();
        }
    }
}
