package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Session statements inside a transaction that has reached several shards keep MySQL's meaning on
 * every shard: a session variable SET again mid-transaction (the router brings a connection to the
 * session's variables by replaying SETs; one holding the transaction must never be reset, which
 * would roll its part back), and the statements that commit the open transaction implicitly (SET
 * autocommit = 1 after 0, DDL), which must commit every shard's part, not only the part on the
 * shard they run on. On two real MariaDB shards, both drivers, against what one MariaDB answers.
 */
class TransactionAcrossShardsIT {
    @TempDir
    static Path dataDir;

    private static ShardedCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShardedCluster(
                dataDir,
                "vars",
                2,
                List.of("{name: accounts, strategy: range, column: id, ranges: [{below: 100, hostgroup: 10},"
                        + " {hostgroup: 20}]}"),
                List.of());
        cluster.onEveryShard("CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance INT NOT NULL,"
                + " seen VARCHAR(40)) ENGINE=InnoDB");
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void rows() throws SQLException {
        cluster.onEveryShard("DELETE FROM accounts");
        cluster.onShard(10, "INSERT INTO accounts VALUES (1, 10, NULL)");
        cluster.onShard(20, "INSERT INTO accounts VALUES (101, 10, NULL)");
    }

    private static List<String> everyRow() throws SQLException {
        List<String> rows = new ArrayList<>();
        for (int hostgroup : new int[] {10, 20}) {
            try (Connection c = cluster.direct(hostgroup);
                    ResultSet rs =
                            c.createStatement().executeQuery("SELECT id, balance, seen FROM accounts ORDER BY id")) {
                while (rs.next()) {
                    rows.add(hostgroup + ":" + rs.getLong(1) + "=" + rs.getInt(2) + "/" + rs.getString(3));
                }
            }
        }
        return rows;
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void aVariableSetAgainMidTransactionKeepsEveryShardsTransaction(Driver driver) throws SQLException {
        try (Connection c = cluster.proxied(driver);
                Statement s = c.createStatement()) {
            s.execute("SET time_zone = '+01:00'");
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 101");
            s.execute("SET time_zone = '+02:00'");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 101");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1");
            s.execute("COMMIT");
        }
        assertThat(everyRow()).containsExactly("10:1=12/null", "20:101=12/null");
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void aVariableSetAgainMidTransactionThenRolledBackLeavesNothing(Driver driver) throws SQLException {
        try (Connection c = cluster.proxied(driver);
                Statement s = c.createStatement()) {
            s.execute("SET sql_mode = 'STRICT_TRANS_TABLES'");
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 101");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1");
            s.execute("SET sql_mode = 'STRICT_ALL_TABLES'");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 101");
            s.execute("ROLLBACK");
        }
        assertThat(everyRow()).containsExactly("10:1=10/null", "20:101=10/null");
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void autocommitSwitchedBackOnCommitsWhatEveryShardHolds(Driver driver) throws SQLException {
        // MySQL: SET autocommit = 1 commits the transaction autocommit = 0 left open
        try (Connection c = cluster.proxied(driver);
                Statement s = c.createStatement()) {
            s.execute("SET autocommit = 0");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 101");
            s.execute("SET autocommit = 1");
            assertThat(everyRow())
                    .as("committed when autocommit came back on")
                    .containsExactly("10:1=11/null", "20:101=11/null");
        }
        assertThat(everyRow()).containsExactly("10:1=11/null", "20:101=11/null");
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void ddlInsideATransactionCommitsEveryShardsPart(Driver driver) throws SQLException {
        // MySQL commits the transaction before a CREATE TABLE: a ROLLBACK after it undoes nothing
        try (Connection c = cluster.proxied(driver);
                Statement s = c.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 101");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1");
            s.execute("CREATE TABLE IF NOT EXISTS scratch_" + driver.name().toLowerCase(java.util.Locale.ROOT)
                    + " (x INT)");
            s.execute("ROLLBACK");
        }
        assertThat(everyRow()).containsExactly("10:1=11/null", "20:101=11/null");
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void lockTablesOnOneShardCommitsEveryShardsPart(Driver driver) throws SQLException {
        cluster.onShard(10, "CREATE TABLE IF NOT EXISTS unsharded_notes (x INT) ENGINE=InnoDB");
        try (Connection c = cluster.proxied(driver);
                Statement s = c.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 101");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1");
            s.execute("LOCK TABLES unsharded_notes WRITE"); // a table of the home hostgroup only
            s.execute("UNLOCK TABLES");
            s.execute("ROLLBACK");
        }
        assertThat(everyRow()).containsExactly("10:1=11/null", "20:101=11/null");
    }
}
