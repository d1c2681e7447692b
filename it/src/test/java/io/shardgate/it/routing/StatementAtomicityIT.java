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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A write that runs on several shards is one MySQL statement: it takes effect everywhere or nowhere.
 * On three real MariaDB shards (a range-sharded table, so each row's shard is known): a multi-row
 * INSERT whose row on one shard is a duplicate key, and an UPDATE that overflows on one shard,
 * leave no row changed on any shard, in autocommit mode, inside a transaction (where the
 * statements before it stay and COMMIT keeps them) and with autocommit off; a write that succeeds
 * is committed on every shard and leaves no transaction open on any. With both drivers, text and
 * server-side prepared.
 */
class StatementAtomicityIT {
    @TempDir
    static Path dataDir;

    private static ShardedCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShardedCluster(
                dataDir,
                "atomic",
                3,
                List.of("{name: accounts, strategy: range, column: id, ranges: [{below: 100, hostgroup: 10},"
                        + " {below: 200, hostgroup: 20}, {hostgroup: 30}]}"),
                List.of());
        cluster.onEveryShard("CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance INT NOT NULL) ENGINE=InnoDB");
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
        cluster.onShard(10, "INSERT INTO accounts VALUES (1, 10), (2, 20)");
        cluster.onShard(20, "INSERT INTO accounts VALUES (101, 10), (102, 2147483647)");
        cluster.onShard(30, "INSERT INTO accounts VALUES (201, 10)");
    }

    static List<Arguments> clients() {
        List<Arguments> out = new ArrayList<>();
        for (Driver driver : Driver.values()) {
            out.add(Arguments.of(driver, false));
            out.add(Arguments.of(driver, true));
        }
        return out;
    }

    private static Connection proxied(Driver driver, boolean prepared) throws SQLException {
        return cluster.proxied(driver, Map.of("useServerPrepStmts", String.valueOf(prepared)));
    }

    /** Every row of every shard, as "hostgroup:id=balance", in shard and id order. */
    private static List<String> everyRow() throws SQLException {
        List<String> rows = new ArrayList<>();
        for (int hostgroup : new int[] {10, 20, 30}) {
            try (Connection c = cluster.direct(hostgroup);
                    ResultSet rs = c.createStatement().executeQuery("SELECT id, balance FROM accounts ORDER BY id")) {
                while (rs.next()) {
                    rows.add(hostgroup + ":" + rs.getLong(1) + "=" + rs.getInt(2));
                }
            }
        }
        return rows;
    }

    /** Transactions open on the shards (the router's connections included): none once a statement is over. */
    private static int openTransactions() throws SQLException {
        int open = 0;
        for (int hostgroup : new int[] {10, 20, 30}) {
            try (Connection c = cluster.direct(hostgroup);
                    ResultSet rs =
                            c.createStatement().executeQuery("SELECT COUNT(*) FROM information_schema.INNODB_TRX")) {
                rs.next();
                open += rs.getInt(1);
            }
        }
        return open;
    }

    private static void execute(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            ps.execute();
        }
    }

    private static final List<String> INITIAL =
            List.of("10:1=10", "10:2=20", "20:101=10", "20:102=2147483647", "30:201=10");

    @ParameterizedTest(name = "{0} prepared={1}")
    @MethodSource("clients")
    void autocommitWritesThatFailOnOneShardChangeNoShard(Driver driver, boolean prepared) throws Exception {
        try (Connection c = proxied(driver, prepared)) {
            // 3 and 202 are new; 101 exists on hostgroup 20
            assertThatThrownBy(() ->
                            execute(c, "INSERT INTO accounts (id, balance) VALUES (?, 1), (?, 1), (?, 1)", 3, 101, 202))
                    .isInstanceOf(SQLException.class)
                    .satisfies(
                            e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1062));
            assertThat(everyRow()).isEqualTo(INITIAL);
            // overflows on hostgroup 20 only (strict mode): the other shards' increments are undone
            assertThatThrownBy(() -> execute(c, "UPDATE accounts SET balance = balance + ?", 1))
                    .isInstanceOf(SQLException.class)
                    .satisfies(
                            e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1264));
            assertThat(everyRow()).isEqualTo(INITIAL);
            assertThat(openTransactions()).isZero();

            // the session goes on; a write that succeeds everywhere is committed everywhere
            execute(c, "INSERT INTO accounts (id, balance) VALUES (?, 5), (?, 5), (?, 5)", 3, 103, 203);
            execute(c, "DELETE FROM accounts WHERE balance = ?", 20);
            assertThat(openTransactions()).isZero();
            assertThat(everyRow())
                    .containsExactly(
                            "10:1=10", "10:3=5", "20:101=10", "20:102=2147483647", "20:103=5", "30:201=10", "30:203=5");
        }
    }

    @ParameterizedTest(name = "{0} prepared={1}")
    @MethodSource("clients")
    void insideATransactionOnlyTheFailedStatementIsUndone(Driver driver, boolean prepared) throws Exception {
        try (Connection c = proxied(driver, prepared)) {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO accounts (id, balance) VALUES (?, 7), (?, 7)", 4, 204);
            assertThatThrownBy(() ->
                            execute(c, "INSERT INTO accounts (id, balance) VALUES (?, 1), (?, 1), (?, 1)", 5, 101, 205))
                    .isInstanceOf(SQLException.class)
                    .satisfies(
                            e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1062));
            assertThatThrownBy(() -> execute(c, "UPDATE accounts SET balance = balance + ?", 1))
                    .isInstanceOf(SQLException.class)
                    .satisfies(
                            e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1264));
            execute(c, "UPDATE accounts SET balance = balance * ? WHERE balance = ?", 2, 7);
            c.commit();
            assertThat(openTransactions()).isZero();
            assertThat(everyRow())
                    .containsExactly(
                            "10:1=10",
                            "10:2=20",
                            "10:4=14",
                            "20:101=10",
                            "20:102=2147483647",
                            "30:201=10",
                            "30:204=14");

            // a statement on several shards that succeeded is undone by ROLLBACK like any other
            execute(c, "INSERT INTO accounts (id, balance) VALUES (?, 9), (?, 9)", 6, 206);
            c.rollback();
            c.setAutoCommit(true);
        }
        assertThat(openTransactions()).isZero();
        assertThat(everyRow()).doesNotContain("10:6=9", "30:206=9");
    }

    @ParameterizedTest(name = "{0} prepared={1}")
    @MethodSource("clients")
    void anExplicitTransactionKeepsItsEarlierStatements(Driver driver, boolean prepared) throws Exception {
        try (Connection c = proxied(driver, prepared);
                Statement s = c.createStatement()) {
            s.execute("BEGIN");
            execute(c, "UPDATE accounts SET balance = ? WHERE id IN (?, ?)", 50, 1, 201);
            assertThatThrownBy(() -> execute(c, "UPDATE accounts SET balance = balance + ? WHERE id > ?", 1, 0))
                    .isInstanceOf(SQLException.class)
                    .satisfies(
                            e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1264));
            s.execute("COMMIT");
        }
        assertThat(openTransactions()).isZero();
        assertThat(everyRow()).containsExactly("10:1=50", "10:2=20", "20:101=10", "20:102=2147483647", "30:201=50");
    }
}
