package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.Driver;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * FOUND_ROWS() and ROW_COUNT() read the session's previous statement, which through the router may
 * have run on several shards or on a pooled connection another client used since: on two real
 * MariaDB shards with multiplexing on, each is answered with MySQL's value or refused (1235), never
 * with another statement's value.
 */
class PreviousStatementIT {
    @TempDir
    static Path dataDir;

    private static ShardedCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShardedCluster(
                dataDir,
                "counts",
                2,
                List.of("{name: items, strategy: range, column: id, ranges: [{below: 100, hostgroup: 10},"
                        + " {hostgroup: 20}]}"),
                List.of());
        cluster.onEveryShard("CREATE TABLE items (id BIGINT PRIMARY KEY, n INT NOT NULL)");
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void rows() throws SQLException {
        cluster.onEveryShard("DELETE FROM items");
        cluster.onShard(10, "INSERT INTO items VALUES (1, 1), (2, 1), (3, 2)");
        cluster.onShard(20, "INSERT INTO items VALUES (101, 1), (102, 2)");
    }

    private static long one(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            long value = rs.getLong(1);
            assertThat(rs.next()).isFalse();
            return value;
        }
    }

    private static void refused(Statement s, String sql) {
        assertThatThrownBy(() -> s.executeQuery(sql))
                .isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1235))
                .hasMessageContaining("FOUND_ROWS() or ROW_COUNT()");
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void afterAMergeTheRouterAnswersRowCountAndRefusesWhatItDoesNotKnow(Driver driver) throws Exception {
        try (Connection c = cluster.proxied(driver);
                Statement s = c.createStatement()) {
            assertThat(s.executeUpdate("UPDATE items SET n = n + 10 WHERE n = 1"))
                    .isEqualTo(3);
            assertThat(one(s, "SELECT ROW_COUNT()")).isEqualTo(3);
            assertThat(one(s, "SELECT ROW_COUNT()"))
                    .as("after the SELECT ROW_COUNT() itself")
                    .isEqualTo(-1);
            s.executeQuery("SELECT n, COUNT(*) FROM items GROUP BY n").close(); // merged whole, then answered
            assertThat(one(s, "select row_count() AS n")).isEqualTo(-1);
            s.executeQuery("SELECT n, COUNT(*) FROM items GROUP BY n").close();
            refused(s, "SELECT FOUND_ROWS()"); // the merge does not count the rows it sends
            s.executeQuery("SELECT id FROM items ORDER BY id LIMIT 4").close(); // streamed: nothing recorded
            refused(s, "SELECT ROW_COUNT()");
            refused(s, "SELECT FOUND_ROWS()");
            s.executeUpdate("DELETE FROM items WHERE n = 2");
            refused(s, "SELECT ROW_COUNT() + 0"); // not the router's shape: it would run on a shard
        }
        try (Connection c = cluster.proxied(driver, Map.of("useServerPrepStmts", "true"));
                Statement s = c.createStatement();
                PreparedStatement ps = c.prepareStatement("SELECT ROW_COUNT()")) {
            // a server-side prepared ROW_COUNT() runs on a backend: after a merge, refused
            s.executeUpdate("UPDATE items SET n = 0");
            assertThatThrownBy(ps::executeQuery)
                    .isInstanceOf(SQLException.class)
                    .satisfies(
                            e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1235));
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void onTheConnectionThatRanThePreviousStatementTheServerAnswers(Driver driver) throws Exception {
        try (Connection c = cluster.proxied(driver);
                Statement s = c.createStatement()) {
            // SQL_CALC_FOUND_ROWS keeps the connection: FOUND_ROWS() runs where it was counted (1 row, 0 sent)
            s.executeQuery("SELECT SQL_CALC_FOUND_ROWS id FROM items WHERE id = 1 LIMIT 0")
                    .close();
            assertThat(one(s, "SELECT FOUND_ROWS()")).isEqualTo(1);
            // in a transaction the connection stays: ROW_COUNT() of a one-shard UPDATE is the server's
            c.setAutoCommit(false);
            assertThat(s.executeUpdate("UPDATE items SET n = 5 WHERE id IN (1, 2)"))
                    .isEqualTo(2);
            assertThat(one(s, "SELECT ROW_COUNT()")).isEqualTo(2);
            c.commit();
            c.setAutoCommit(true);
        }
        try (Connection c = cluster.proxied(driver, Map.of());
                Statement s = c.createStatement()) {
            // multiplexed and unpinned: the UPDATE's connection went back to the pool; the router
            // knows the one-shard UPDATE's ROW_COUNT() from its OK (1 row; as the server, on that
            // connection, whatever ran there since), not other SQL over it
            s.executeUpdate("UPDATE items SET n = 6 WHERE id = 101");
            assertThat(one(s, "SELECT ROW_COUNT()")).isEqualTo(1);
            assertThat(one(s, "SELECT ROW_COUNT()"))
                    .as("after the SELECT itself")
                    .isEqualTo(-1);
            s.executeUpdate("UPDATE items SET n = 7 WHERE id = 101");
            refused(s, "SELECT ROW_COUNT() + 0");
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void aPingBetweenAFailedStatementAndRowCountMakesItZeroAsOnTheServer(Driver driver) throws Exception {
        // what MariaDB answers on one connection, asked directly
        long direct;
        try (Connection c = cluster.direct(10);
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.executeUpdate("INSERT INTO items VALUES (1, 1)"))
                    .isInstanceOf(SQLException.class);
            assertThat(one(s, "SELECT ROW_COUNT()")).isEqualTo(-1);
            assertThatThrownBy(() -> s.executeUpdate("INSERT INTO items VALUES (1, 1)"))
                    .isInstanceOf(SQLException.class);
            assertThat(c.isValid(5)).isTrue(); // COM_PING
            direct = one(s, "SELECT ROW_COUNT()");
        }
        assertThat(direct).isZero();
        try (Connection c = cluster.proxied(driver);
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.executeUpdate("INSERT INTO items VALUES (1, 1)"))
                    .isInstanceOf(SQLException.class);
            assertThat(c.isValid(5)).isTrue();
            assertThat(one(s, "SELECT ROW_COUNT()")).isEqualTo(direct);
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void theRoutersOwnWarningsCheckIsNeverTakenForTheStatementsRowCount(Driver driver) throws Exception {
        cluster.onShard(10, "CREATE TABLE IF NOT EXISTS plain (id INT PRIMARY KEY, v INT)", "DELETE FROM plain");
        cluster.onShard(10, "INSERT INTO plain VALUES (1, 1), (2, 2), (3, 3)");
        try (Connection c = cluster.proxied(driver);
                Statement s = c.createStatement()) {
            // in a transaction (which keeps the connection), a warning, then a clean UPDATE of an
            // unlisted table (the same default hostgroup): the router asks SHOW COUNT(*) WARNINGS on
            // that connection, which sets the server's ROW_COUNT() to -1
            c.setAutoCommit(false);
            s.executeQuery("SELECT 1/0").close();
            assertThat(s.executeUpdate("UPDATE plain SET v = v + 1 WHERE id < 3"))
                    .isEqualTo(2);
            try (ResultSet rs = s.executeQuery("SELECT ROW_COUNT()")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).as("the UPDATE's row count").isEqualTo(2);
            } catch (SQLException e) {
                assertThat(e.getErrorCode())
                        .as("or refused, never another statement's count")
                        .isEqualTo(1235);
            }
            c.rollback();
        }
    }
}
