package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Transactions through Shardgate: what a session writes is visible to others exactly when it
 * commits, a rollback leaves nothing behind, and the session can go on afterwards. Each scenario
 * runs once through the router and once directly; every observation along the way must match.
 */
@ExtendWith(ProxyClusterExtension.class)
class TransactionsIT {

    private static ProxyCluster cluster;

    @BeforeAll
    static void createTable(ProxyCluster shared) throws SQLException {
        cluster = shared;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS tx_accounts");
            s.execute("CREATE TABLE tx_accounts (id INT PRIMARY KEY, owner VARCHAR(20) NOT NULL,"
                    + " balance DECIMAL(10,2) NOT NULL) ENGINE=InnoDB");
        }
    }

    /** One scenario against rows {@code [base, base + 100)}; returns what the session and an observer saw. */
    private interface Scenario {
        List<Object> run(Connection session, Connection observer, int base) throws SQLException;
    }

    @ParameterizedTest
    @MethodSource("io.shardgate.it.proxy.Clients#all")
    void committedRowsBecomeVisibleAtCommit(Driver driver, Mode mode) throws SQLException {
        List<Object> seen = compare(driver, mode, 0, (session, observer, base) -> {
            List<Object> observed = new ArrayList<>();
            session.setAutoCommit(false);
            insert(session, base + 1, "alice", "10.00");
            insert(session, base + 2, "bob", "20.50");
            observed.add(count(session, base));
            observed.add(count(observer, base));
            observed.add(inTransaction(session));
            session.commit();
            observed.add(count(observer, base));
            observed.add(sum(observer, base));
            session.setAutoCommit(true);
            observed.add(inTransaction(session));
            return observed;
        });
        assertThat(seen).containsExactly(2L, 0L, 1L, 2L, new BigDecimal("30.50"), 0L);
    }

    @ParameterizedTest
    @MethodSource("io.shardgate.it.proxy.Clients#all")
    void rolledBackRowsNeverBecomeVisible(Driver driver, Mode mode) throws SQLException {
        List<Object> seen = compare(driver, mode, 1, (session, observer, base) -> {
            List<Object> observed = new ArrayList<>();
            session.setAutoCommit(false);
            insert(session, base + 1, "carol", "5.00");
            observed.add(count(session, base));
            session.rollback();
            observed.add(count(session, base));
            observed.add(count(observer, base));
            insert(session, base + 2, "dave", "7.25");
            session.commit();
            observed.add(count(observer, base));
            observed.add(sum(observer, base));
            return observed;
        });
        assertThat(seen).containsExactly(1L, 0L, 0L, 1L, new BigDecimal("7.25"));
    }

    @ParameterizedTest
    @MethodSource("io.shardgate.it.proxy.Clients#all")
    void explicitTransactionStatementsWork(Driver driver, Mode mode) throws SQLException {
        List<Object> seen = compare(driver, mode, 2, (session, observer, base) -> {
            List<Object> observed = new ArrayList<>();
            try (Statement s = session.createStatement()) {
                s.execute("START TRANSACTION");
                insert(session, base + 1, "erin", "1.00");
                observed.add(count(observer, base));
                s.execute("ROLLBACK");
                observed.add(count(observer, base));
                s.execute("BEGIN");
                insert(session, base + 2, "frank", "2.00");
                s.execute("UPDATE tx_accounts SET balance = balance * 3 WHERE id = " + (base + 2));
                observed.add(count(observer, base));
                s.execute("COMMIT");
                observed.add(sum(observer, base));
            }
            return observed;
        });
        assertThat(seen).containsExactly(0L, 0L, 0L, new BigDecimal("6.00"));
    }

    @ParameterizedTest
    @MethodSource("io.shardgate.it.proxy.Clients#all")
    void aTransactionIsOpenFromItsBeginAndASnapshotIsTakenAtItsStart(Driver driver, Mode mode) throws SQLException {
        List<Object> seen = compare(driver, mode, 3, (session, observer, base) -> {
            List<Object> observed = new ArrayList<>();
            try (Statement s = session.createStatement()) {
                s.execute("BEGIN");
                observed.add(inTransaction(session));
                s.execute("COMMIT");
                observed.add(inTransaction(session));
                s.execute("begin work");
                s.execute("rollback work");
                observed.add(inTransaction(session));
                // a BEGIN inside a transaction commits it first
                s.execute("START TRANSACTION");
                insert(session, base + 1, "gina", "1.00");
                s.execute("BEGIN");
                s.execute("ROLLBACK");
                observed.add(count(observer, base));
                // a read-only transaction refuses writes
                s.execute("START TRANSACTION READ ONLY");
                try {
                    insert(session, base + 2, "hal", "2.00");
                    observed.add("written");
                } catch (SQLException e) {
                    observed.add(e.getErrorCode());
                }
                s.execute("ROLLBACK");
                // a plain BEGIN reads what was committed before its first read ...
                s.execute("BEGIN");
                insert(observer, base + 3, "ivy", "3.00");
                observed.add(count(session, base));
                s.execute("COMMIT");
                // ... WITH CONSISTENT SNAPSHOT what was committed before the START
                s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
                insert(observer, base + 4, "jo", "4.00");
                observed.add(count(session, base));
                s.execute("COMMIT");
                observed.add(count(session, base));
            }
            return observed;
        });
        assertThat(seen).containsExactly(1L, 0L, 0L, 1L, 1792, 2L, 2L, 3L);
    }

    /** Runs the scenario through the router and directly (on different rows), asserts equal observations. */
    private static List<Object> compare(Driver driver, Mode mode, int scenario, Scenario body) throws SQLException {
        int base = 1000 * (1 + Clients.ordinal(driver, mode)) + 100 * scenario * 2;
        List<Object> viaRouter;
        List<Object> direct;
        try (Connection session = cluster.proxied(driver, mode);
                Connection observer = cluster.direct()) {
            viaRouter = body.run(session, observer, base);
        }
        try (Connection session = cluster.direct(driver, mode);
                Connection observer = cluster.direct()) {
            direct = body.run(session, observer, base + 100);
        }
        assertThat(viaRouter).as("observations through Shardgate vs direct").isEqualTo(direct);
        return viaRouter;
    }

    private static void insert(Connection c, int id, String owner, String balance) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO tx_accounts VALUES (?, ?, ?)")) {
            ps.setInt(1, id);
            ps.setString(2, owner);
            ps.setBigDecimal(3, new BigDecimal(balance));
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    private static long count(Connection c, int base) throws SQLException {
        return single(c, "SELECT COUNT(*) FROM tx_accounts WHERE id >= ? AND id < ?", base)
                .longValue();
    }

    private static BigDecimal sum(Connection c, int base) throws SQLException {
        return single(c, "SELECT SUM(balance) FROM tx_accounts WHERE id >= ? AND id < ?", base);
    }

    private static long inTransaction(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@in_transaction")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static BigDecimal single(Connection c, String sql, int base) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, base);
            ps.setInt(2, base + 100);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getBigDecimal(1);
            }
        }
    }
}
