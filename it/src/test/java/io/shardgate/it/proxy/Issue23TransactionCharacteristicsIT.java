package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 23 (mtr {@code main.commit} through the router): under autocommit=0, an explicit
 * transaction ended by COMMIT is over, and {@code SET TRANSACTION ISOLATION LEVEL} for the next one
 * succeeds and applies to it, as on MariaDB. The router used to replay the ended transaction's
 * START TRANSACTION before the next statement, which then failed with 1568. And a START
 * TRANSACTION the server refuses is refused through the router too (the router answered every
 * BEGIN-like text itself).
 */
@ExtendWith(ProxyClusterExtension.class)
class Issue23TransactionCharacteristicsIT {
    private static ProxyCluster cluster;

    @BeforeAll
    static void createTable(ProxyCluster shared) throws SQLException {
        cluster = shared;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS itc_items (id INT PRIMARY KEY) ENGINE=InnoDB");
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void setTransactionAfterCommitUnderAutocommitOffAppliesToTheNextTransaction(Driver driver) throws Exception {
        List<String> direct;
        try (Connection c = cluster.direct(driver, Mode.TEXT)) {
            direct = script(c);
        }
        List<String> viaRouter;
        try (Connection c = cluster.proxied(driver, Mode.TEXT)) {
            viaRouter = script(c);
        }
        assertThat(direct)
                .contains(
                        "SET TRANSACTION ISOLATION LEVEL READ COMMITTED: ok",
                        "next transaction reads a later commit: true");
        assertThat(viaRouter).as("through Shardgate (%s) vs directly", driver).isEqualTo(direct);
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void aStartTransactionTheServerRefusesIsRefused(Driver driver) throws Exception {
        List<String> direct;
        try (Connection c = cluster.direct(driver, Mode.TEXT)) {
            direct = outcomes(
                    c, "START TRANSACTION READ ONLY, READ WRITE", "COMMIT", "START TRANSACTION READ WRITE", "COMMIT");
        }
        List<String> viaRouter;
        try (Connection c = cluster.proxied(driver, Mode.TEXT)) {
            viaRouter = outcomes(
                    c, "START TRANSACTION READ ONLY, READ WRITE", "COMMIT", "START TRANSACTION READ WRITE", "COMMIT");
        }
        assertThat(direct.get(0)).startsWith("START TRANSACTION READ ONLY, READ WRITE: 1064 ");
        assertThat(viaRouter).as("through Shardgate (%s) vs directly", driver).isEqualTo(direct);
    }

    private static List<String> outcomes(Connection c, String... statements) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            for (String sql : statements) {
                try {
                    s.execute(sql);
                    out.add(sql + ": ok");
                } catch (SQLException e) {
                    out.add(sql + ": " + e.getErrorCode() + " " + e.getSQLState());
                }
            }
        }
        return out;
    }

    /**
     * The statements of main.commit's chain, each with its outcome; then whether the next
     * transaction reads another session's commit made after its first read (READ COMMITTED does,
     * the session's REPEATABLE READ does not).
     */
    private static List<String> script(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            for (String sql : List.of(
                    "SET @@autocommit = 0",
                    "COMMIT",
                    "START TRANSACTION",
                    "SELECT COUNT(*) FROM itc_items",
                    "COMMIT",
                    "SET TRANSACTION ISOLATION LEVEL READ COMMITTED")) {
                try {
                    s.execute(sql);
                    out.add(sql + ": ok");
                } catch (SQLException e) {
                    out.add(sql + ": " + e.getErrorCode() + " " + e.getMessage());
                }
            }
            long before = count(s);
            try (Connection other = cluster.direct();
                    Statement o = other.createStatement()) {
                o.execute("INSERT INTO itc_items SELECT COALESCE(MAX(id), 0) + 1 FROM itc_items");
            }
            out.add("next transaction reads a later commit: " + (count(s) == before + 1));
            s.execute("ROLLBACK");
            s.execute("SET @@autocommit = 1");
        }
        return out;
    }

    private static long count(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM itc_items")) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }
}
