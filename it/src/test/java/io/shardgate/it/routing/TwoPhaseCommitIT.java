package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.shardgate.it.Driver;
import io.shardgate.it.proxy.RawMySqlClient;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.twophase.Outcome;
import io.shardgate.router.twophase.Resolver;
import io.shardgate.router.twophase.Xid;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A schema with {@code transaction_mode: two_phase} on two real MariaDB shards: transactions and
 * autocommit statements that write on both commit in two phases, the first shard reached (the
 * metadata manager) in a plain transaction whose commit carries the decision row, the other in
 * XA, or roll back on both; a branch failing its first phase rolls every shard back with an error
 * naming the shard and the xid; the resolver finishes branches left prepared by the manager's row,
 * fences those without one, or they are resolved by hand.
 */
class TwoPhaseCommitIT {
    private static final String SCHEMA = "bank";

    @TempDir
    static Path dir;

    private static ShardedCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShardedCluster(
                dir,
                SCHEMA,
                2,
                List.of("{name: accounts, strategy: range, column: id, ranges: [{below: 1000, hostgroup: 10},"
                        + " {hostgroup: 20}]}"),
                List.of("transaction_mode: two_phase"));
        cluster.onEveryShard(
                "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance INT NOT NULL) ENGINE=InnoDB",
                "CREATE TABLE ballast (id INT PRIMARY KEY AUTO_INCREMENT, v INT) ENGINE=InnoDB");
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void accounts() throws SQLException {
        cluster.onShard(10, "DELETE FROM accounts", "INSERT INTO accounts VALUES (1, 100), (2, 100)");
        cluster.onShard(20, "DELETE FROM accounts", "INSERT INTO accounts VALUES (1001, 100), (1002, 100)");
    }

    @Test
    void transferAcrossShardsCommitsOnBothWithTwoPhaseCommit() throws Exception {
        double before = committed();
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance - 10 WHERE id = 1");
            s.executeUpdate("UPDATE accounts SET balance = balance + 10 WHERE id = 1001");
            s.execute("COMMIT");
            assertThat(balance(1)).isEqualTo(90);
            assertThat(balance(1001)).isEqualTo(110);
            assertThat(committed()).isEqualTo(before + 1);

            // a transaction that stays on one shard commits in one phase
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance - 1 WHERE id = 1");
            s.execute("COMMIT");
            assertThat(balance(1)).isEqualTo(89);
            assertThat(committed()).isEqualTo(before + 1);

            // an autocommit statement on both shards: XA around it, two phases
            assertThat(s.executeUpdate("UPDATE accounts SET balance = balance + 5 WHERE id IN (2, 1002)"))
                    .isEqualTo(2);
            assertThat(balance(2)).isEqualTo(105);
            assertThat(balance(1002)).isEqualTo(105);
            assertThat(committed()).isEqualTo(before + 2);

            // ROLLBACK undoes both branches
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = 0 WHERE id = 1");
            s.executeUpdate("UPDATE accounts SET balance = 0 WHERE id = 1001");
            s.execute("ROLLBACK");
            assertThat(balance(1)).isEqualTo(89);
            assertThat(balance(1001)).isEqualTo(110);

            // savepoints inside XA branches: MariaDB keeps them
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = 1 WHERE id = 1");
            s.execute("SAVEPOINT sp");
            s.executeUpdate("UPDATE accounts SET balance = 2 WHERE id = 1001");
            s.execute("ROLLBACK TO SAVEPOINT sp");
            s.execute("COMMIT");
            assertThat(balance(1)).isEqualTo(1);
            assertThat(balance(1001)).isEqualTo(110);
        }
        assertThat(prepared(10)).isEmpty();
        assertThat(prepared(20)).isEmpty();
    }

    @Test
    void aBranchThatOnlyReadNeedsNoPrepareNorDecision() throws Exception {
        double before = committed();
        long prepares10 = xaPrepares(10);
        long prepares20 = xaPrepares(20);
        long starts10 = xaStatements(10, "Com_xa_start");
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            // reads on shard 10 (one FOR UPDATE), a write on shard 20: one writer, one phase
            s.execute("BEGIN");
            try (ResultSet rs = s.executeQuery("SELECT balance FROM accounts WHERE id = 1 FOR UPDATE")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(100);
            }
            s.executeQuery("SELECT COUNT(*) FROM accounts WHERE id = 2").close();
            s.executeUpdate("UPDATE accounts SET balance = balance + 10 WHERE id = 1001");
            s.execute("COMMIT");
            assertThat(balance(1001)).isEqualTo(110);
            assertThat(balance(1)).isEqualTo(100);

            // only reads on both shards: nothing to prepare either
            s.execute("BEGIN");
            s.executeQuery("SELECT balance FROM accounts WHERE id = 1").close();
            s.executeQuery("SELECT balance FROM accounts WHERE id = 1002").close();
            s.execute("COMMIT");

            // the read-only branch's locks went with its commit: a direct writer is not blocked
            cluster.onShard(
                    10, "SET SESSION innodb_lock_wait_timeout = 5", "UPDATE accounts SET balance = 100 WHERE id = 1");
            assertThat(committed()).as("no two-phase commit").isEqualTo(before);
            assertThat(xaPrepares(10)).isEqualTo(prepares10);
            assertThat(xaPrepares(20)).isEqualTo(prepares20);

            // a write on both shards: PREPARE on shard 20; shard 10, reached first, is the metadata
            // manager and commits its plain transaction with the decision row in it
            s.execute("BEGIN");
            s.executeQuery("SELECT balance FROM accounts WHERE id = 1").close();
            s.executeUpdate("UPDATE accounts SET balance = balance - 5 WHERE id = 2");
            s.executeUpdate("UPDATE accounts SET balance = balance + 5 WHERE id = 1002");
            s.execute("COMMIT");
            assertThat(balance(2)).isEqualTo(95);
            assertThat(balance(1002)).isEqualTo(105);
            assertThat(committed()).isEqualTo(before + 1);
            assertThat(xaPrepares(10)).as("the manager never prepares").isEqualTo(prepares10);
            assertThat(xaPrepares(20)).isEqualTo(prepares20 + 1);
            assertThat(xaStatements(10, "Com_xa_start"))
                    .as("the transactions' first shard runs no XA at all")
                    .isEqualTo(starts10);
            assertThat(zooKeeperHasDecisions())
                    .as("nothing written to ZooKeeper per transaction")
                    .isFalse();

            // a statement not known to be a read (here a stored function called by a SELECT) counts
            // as a write: two writers, two phases
            cluster.onShard(
                    10,
                    "CREATE OR REPLACE FUNCTION touch(i BIGINT) RETURNS INT MODIFIES SQL DATA BEGIN"
                            + " UPDATE accounts SET balance = balance + 1 WHERE id = i; RETURN 1; END");
            s.execute("BEGIN");
            s.executeQuery("SELECT touch(1)").close();
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1002");
            s.execute("COMMIT");
            assertThat(balance(1)).isEqualTo(101);
            assertThat(balance(1002)).isEqualTo(106);
            assertThat(committed()).isEqualTo(before + 2);
            assertThat(xaPrepares(20)).isEqualTo(prepares20 + 2);
            assertThat(xaPrepares(10)).isEqualTo(prepares10);
        } finally {
            cluster.onShard(10, "DROP FUNCTION IF EXISTS touch");
        }
        assertThat(prepared(10)).isEmpty();
        assertThat(prepared(20)).isEmpty();
    }

    /**
     * The manager's decision row and COMMIT, and the other branch's XA END and XA PREPARE, go as
     * multi-statement queries; a client that switched multi-statements off (COM_SET_OPTION, passed
     * to its server session) makes the server refuse each with ER_PARSE_ERROR, having run none of
     * it: the router then sends them one by one, and the commit stands. A transaction on one shard
     * commits with a plain COMMIT.
     */
    @Test
    void aTwoPhaseCommitSurvivesMultiStatementsSwitchedOff() throws Exception {
        generalLog(10, true, null);
        generalLog(20, true, null);
        try (RawMySqlClient raw = RawMySqlClient.loggedIn(
                cluster.router.mysqlPort(), ShardedCluster.USER, ShardedCluster.PASSWORD, SCHEMA)) {
            raw.sendCommand(new byte[] {(byte) Command.COM_SET_OPTION.code(), 1, 0}); // MULTI_STATEMENTS_OFF
            RawMySqlClient.RawPacket switched = raw.readPacket();
            assertThat(switched.isErr()).as("COM_SET_OPTION: %s", switched).isFalse();
            for (String sql : List.of(
                    "BEGIN",
                    "UPDATE accounts SET balance = balance - 7 WHERE id = 1",
                    "UPDATE accounts SET balance = balance + 7 WHERE id = 1001",
                    "COMMIT",
                    "BEGIN",
                    "UPDATE accounts SET balance = balance - 1 WHERE id = 2",
                    "COMMIT")) {
                raw.sendCommand(RawMySqlClient.comQuery(sql));
                RawMySqlClient.RawPacket answer = raw.readPacket();
                assertThat(answer.isOk())
                        .as(sql + ": " + (answer.isErr() ? answer.err() : answer))
                        .isTrue();
            }
        }
        List<String> manager = generalLog(10, false, "%");
        List<String> branch = generalLog(20, false, "XA %");
        assertThat(balance(1)).isEqualTo(93);
        assertThat(balance(1001)).isEqualTo(107);
        assertThat(balance(2)).isEqualTo(99);
        assertThat(prepared(20)).isEmpty();
        // the one round trip was tried, the server parsed none of it, and the steps ran one by one
        assertThat(manager)
                .anyMatch(q -> q.startsWith("INSERT INTO `shardgate`.`twophase_decisions`") && q.endsWith("; COMMIT"));
        assertThat(manager)
                .anyMatch(q -> q.startsWith("INSERT INTO `shardgate`.`twophase_decisions`") && q.endsWith("'commit')"));
        assertThat(manager).noneMatch(q -> q.startsWith("XA "));
        assertThat(branch).anyMatch(q -> q.startsWith("XA END ") && q.contains("; XA PREPARE "));
        assertThat(branch).anyMatch(q -> q.startsWith("XA PREPARE "));
        assertThat(branch).anyMatch(q -> q.startsWith("XA COMMIT ") && !q.endsWith(" ONE PHASE"));
        // the one-shard transaction: BEGIN, its statement, COMMIT on shard 10, nothing between
        // (the log's tail is the test's own connection switching it off)
        int last = manager.lastIndexOf("UPDATE accounts SET balance = balance - 1 WHERE id = 2");
        assertThat(manager.subList(last - 1, last + 2))
                .containsExactly("BEGIN", "UPDATE accounts SET balance = balance - 1 WHERE id = 2", "COMMIT");
        assertThat(manager.subList(last + 2, manager.size())).noneMatch(q -> q.contains("twophase_decisions"));
    }

    /**
     * Switches the shard's general query log (as a table) on, emptied ({@code on}), or off and
     * returns the statements it logged since whose text is {@code LIKE like}, in order.
     */
    private static List<String> generalLog(int hostgroup, boolean on, String like) throws SQLException {
        var shard = cluster.shard(hostgroup);
        List<String> xa = new ArrayList<>();
        try (Connection root = Driver.MARIADB.connect(shard.port(), SCHEMA, "root", shard.rootPassword());
                Statement s = root.createStatement()) {
            if (on) {
                s.execute("SET GLOBAL log_output = 'TABLE'");
                s.execute("TRUNCATE mysql.general_log");
                s.execute("SET GLOBAL general_log = 1");
                return xa;
            }
            s.execute("SET GLOBAL general_log = 0");
            try (ResultSet rs = s.executeQuery("SELECT CONVERT(argument USING utf8mb4) FROM mysql.general_log"
                    + " WHERE command_type = 'Query' AND argument LIKE '" + like + "' ORDER BY event_time")) {
                while (rs.next()) {
                    xa.add(rs.getString(1));
                }
            }
        }
        return xa;
    }

    @Test
    void aStatementFailingOnOneShardLeavesNoEffectOnEither() throws Exception {
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            // 1001 exists: the shard 20 half fails, the shard 10 half must not stay
            assertThatThrownBy(() -> s.executeUpdate("INSERT INTO accounts (id, balance) VALUES (5, 1), (1001, 1)"))
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getErrorCode()).as(e.getMessage()).isEqualTo(1062));
            assertThat(count(10, "id = 5")).isZero();
        }
        assertThat(prepared(10)).isEmpty();
        assertThat(prepared(20)).isEmpty();
    }

    @Test
    void aBranchFailingItsFirstPhaseRollsBackEveryShardAndNamesShardAndXid() throws Exception {
        java.util.concurrent.ExecutorService runAside = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement();
                Connection other = cluster.direct(20);
                Statement o = other.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance - 50 WHERE id = 1");
            s.executeUpdate("UPDATE accounts SET balance = balance + 50 WHERE id = 1001");
            // a deadlock on shard 20 whose victim is the router's branch (the lighter transaction):
            // MariaDB marks the branch rollback-only, so its XA END / PREPARE fails at COMMIT
            o.execute("BEGIN");
            o.executeUpdate("INSERT INTO ballast (v) SELECT seq FROM seq_1_to_200");
            o.executeQuery("SELECT * FROM accounts WHERE id = 1002 FOR UPDATE").close();
            CompletableFuture<SQLException> victim = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            s.executeQuery("SELECT * FROM accounts WHERE id = 1002 FOR UPDATE")
                                    .close();
                            return null;
                        } catch (SQLException e) {
                            return e;
                        }
                    },
                    runAside); // its own thread: the common pool may have none free on a small machine
            try {
                FaultWait.until("the router's branch waits for the lock", () -> lockWaits(20) > 0 || victim.isDone());
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + describe(20), e);
            }
            assertThat(victim.isDone())
                    .as("the router's SELECT ... FOR UPDATE waits: %s", victim.getNow(null))
                    .isFalse();
            o.executeQuery("SELECT * FROM accounts WHERE id = 1001 FOR UPDATE").close();
            SQLException deadlock = victim.get(30, TimeUnit.SECONDS);
            assertThat((Object) deadlock)
                    .as("the router's branch was the deadlock victim")
                    .isNotNull();
            assertThat(deadlock.getErrorCode()).isEqualTo(1213);
            o.execute("ROLLBACK");

            assertThatThrownBy(() -> s.execute("COMMIT")).isInstanceOfSatisfying(SQLException.class, e -> {
                assertThat(e.getErrorCode()).isEqualTo(1402);
                assertThat(e.getMessage()).contains("hostgroup 20").containsPattern("sg\\.7\\.\\d+\\.\\d+");
            });
            // the session goes on: a new transaction works
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1");
            s.execute("COMMIT");
        } finally {
            runAside.shutdownNow();
        }
        assertThat(balance(1)).as("shard 10's half rolled back, then +1").isEqualTo(101);
        assertThat(balance(1001)).isEqualTo(100);
        assertThat(prepared(10)).isEmpty();
        assertThat(prepared(20)).isEmpty();
    }

    @Test
    void resetConnectionInsideATwoPhaseTransactionLeavesNothingBehind() throws Exception {
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = 0 WHERE id = 1");
            s.executeUpdate("UPDATE accounts SET balance = 0 WHERE id = 1001");
            c.unwrap(org.mariadb.jdbc.Connection.class).reset(); // COM_RESET_CONNECTION
            // the branches are gone with their connections; pooled connections are clean
            assertThat(s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id IN (1, 1001)"))
                    .isEqualTo(2);
        }
        assertThat(balance(1)).isEqualTo(101);
        assertThat(balance(1001)).isEqualTo(101);
        assertThat(prepared(10)).isEmpty();
        assertThat(prepared(20)).isEmpty();
    }

    @Test
    void whatXaCannotExpressIsRefusedNotCommittedHalfway() throws Exception {
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT"))
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo(1235));
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = 7 WHERE id = 1");
            assertThatThrownBy(() -> s.execute("COMMIT AND CHAIN"))
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo(1235));
            s.execute("ROLLBACK");
            s.execute("SET autocommit = 0");
            s.executeUpdate("UPDATE accounts SET balance = 7 WHERE id = 1");
            assertThatThrownBy(() -> s.executeUpdate("UPDATE accounts SET balance = 7 WHERE id = 1001"))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(1235);
                        assertThat(e.getMessage()).contains("autocommit off");
                    });
            s.execute("ROLLBACK");
            s.execute("SET autocommit = 1");
        }
        // a BEGIN inside the XA transaction, as a server-side prepared statement too
        try (Connection c = cluster.proxied(Driver.MARIADB, java.util.Map.of("useServerPrepStmts", "true"));
                java.sql.PreparedStatement begin = c.prepareStatement("BEGIN");
                Statement s = c.createStatement()) {
            begin.execute();
            s.executeUpdate("UPDATE accounts SET balance = 8 WHERE id = 1");
            s.executeUpdate("UPDATE accounts SET balance = 8 WHERE id = 1001");
            assertThatThrownBy(begin::execute)
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo(1235));
            s.execute("ROLLBACK");
        }
        assertThat(balance(1)).isEqualTo(100);
        assertThat(balance(1001)).isEqualTo(100);
        assertThat(prepared(10)).isEmpty();
    }

    @Test
    void resolverRollsBackOrphansAndCommitsByHand() throws Exception {
        Resolver resolver = cluster.router.twoPhaseResolver();
        FaultWait.until("the router has its xid epoch", () -> resolver.epoch() >= 0);
        // an orphan: prepared by a router (epoch 999999) that is gone, no decision row on its
        // manager (hostgroup 20): fenced, rolled back
        Xid orphan = new Xid(7, 999_999, 1, 20);
        prepareOnShard(10, orphan, "UPDATE accounts SET balance = 0 WHERE id = 2");
        // prepared by a router that is gone, its manager a hostgroup no longer configured: no
        // resolver can decide it, an operator must
        Xid unmanaged = new Xid(7, 999_997, 1, 30);
        prepareOnShard(10, unmanaged, "UPDATE accounts SET balance = balance + 1 WHERE id = 1");
        prepareOnShard(20, unmanaged, "UPDATE accounts SET balance = balance - 1 WHERE id = 1001");

        resolver.passNow();
        assertThat(balance(2)).as("orphan rolled back").isEqualTo(100);
        assertThat(decisionRow(20, orphan)).as("the fence's row").isEqualTo("rollback");
        assertThat(prepared(10)).containsExactly(unmanaged.gtrid());
        assertThat(prepared(20)).containsExactly(unmanaged.gtrid());
        assertThat(resolver.unresolved())
                .extracting(Resolver.InDoubt::xid, Resolver.InDoubt::hostgroup, Resolver.InDoubt::decision)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(unmanaged.gtrid(), 10, "none"),
                        org.assertj.core.groups.Tuple.tuple(unmanaged.gtrid(), 20, "none"));
        assertThat(gauge("shardgate.twophase.in_doubt")).isEqualTo(2);

        assertThat(http("GET", "/api/transactions"))
                .startsWith("200 ")
                .contains("\"xid\":\"" + unmanaged.gtrid() + "\"", "\"decision\":\"none\"", "hostgroup 30");
        // by hand, over HTTP
        assertThat(http("POST", "/api/transactions/resolve?xid=" + unmanaged.gtrid() + "&outcome=commit"))
                .startsWith("200 ")
                .contains("\"resolved\":2");
        assertThat(balance(1)).isEqualTo(101);
        assertThat(balance(1001)).isEqualTo(99);
        assertThat(prepared(10)).isEmpty();
        assertThat(prepared(20)).isEmpty();
        // decided once: the other outcome is refused (the orphan's fence wrote rollback)
        assertThatThrownBy(() -> resolver.resolve(orphan.gtrid(), Outcome.COMMIT))
                .hasMessageContaining("already decided: rollback");
        assertThat(http("POST", "/api/transactions/resolve?xid=" + orphan.gtrid() + "&outcome=commit"))
                .startsWith("409 ");
        assertThat(http("POST", "/api/transactions/resolve?xid=nonsense&outcome=commit"))
                .startsWith("400 ");
        resolver.passNow();
        assertThat(resolver.unresolved()).isEmpty();
        assertThat(gauge("shardgate.twophase.in_doubt")).isZero();

        // commit rows are deleted once a pass finds no branch of those the pass before it listed
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 2");
            s.executeUpdate("UPDATE accounts SET balance = balance - 1 WHERE id = 1002");
            s.execute("COMMIT");
        }
        resolver.passNow();
        resolver.passNow();
        assertThat(commitRows(10)).as("finished commit rows are deleted").isZero();
    }

    /**
     * The fence against a manager whose transaction is still open: the resolver's rollback row
     * waits for the manager's uncommitted commit row; the manager commits, the fence meets a
     * duplicate key, reads the commit and commits the branch. Then the other way: the manager
     * rolls back while the fence waits, the fence's row goes in, the branch rolls back.
     */
    @Test
    void aFenceWaitsForAnOpenManagerAndFollowsWhatItDid() throws Exception {
        Resolver resolver = cluster.router.twoPhaseResolver();
        FaultWait.until("the router has its xid epoch", () -> resolver.epoch() >= 0);
        ensureDecisionTable(10);
        for (boolean managerCommits : List.of(true, false)) {
            // a dead router's transaction (epoch 999998): manager 10 has inserted its commit row,
            // not committed yet; its branch on 20 is prepared
            Xid xid = new Xid(7, 999_998, managerCommits ? 1 : 2, 10);
            prepareOnShard(20, xid, "UPDATE accounts SET balance = balance + 3 WHERE id = 1002");
            try (Connection manager = cluster.direct(10);
                    Statement m = manager.createStatement()) {
                m.execute("BEGIN");
                m.executeUpdate("UPDATE accounts SET balance = balance - 3 WHERE id = 2");
                m.executeUpdate("INSERT INTO shardgate.twophase_decisions (id, outcome) VALUES ('" + xid.gtrid()
                        + "', 'commit')");
                java.util.concurrent.ExecutorService aside = java.util.concurrent.Executors.newSingleThreadExecutor();
                try {
                    java.util.concurrent.Future<Integer> pass = aside.submit(resolver::passNow);
                    // the fence's INSERT waits for the manager's row lock; with the lock wait over
                    // (2 s) it answers 1205 and the pass leaves the branch: then this loop waits again
                    FaultWait.until("the fence waits for the manager's row", () -> pass.isDone() || fenceWaits(10) > 0);
                    if (managerCommits) {
                        m.execute("COMMIT");
                    } else {
                        m.execute("ROLLBACK");
                    }
                    pass.get(60, TimeUnit.SECONDS);
                } finally {
                    aside.shutdownNow();
                }
            }
            // a pass that met the lock wait timeout (a loaded machine) is repeated by the next
            FaultWait.until("branch resolved", () -> {
                try {
                    resolver.passNow();
                    return prepared(20).isEmpty();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            if (managerCommits) {
                assertThat(balance(2)).isEqualTo(97);
                assertThat(balance(1002))
                        .as("the branch followed the manager's commit")
                        .isEqualTo(103);
                assertThat(decisionRow(10, xid)).isEqualTo("commit");
            } else {
                assertThat(balance(2)).as("rolled back, as the branch").isEqualTo(97);
                assertThat(balance(1002))
                        .as("the branch rolled back with the manager")
                        .isEqualTo(103);
                assertThat(decisionRow(10, xid)).as("the fence's row").isEqualTo("rollback");
            }
        }
        assertThat(prepared(10)).isEmpty();
    }

    /**
     * A router's COMMIT that meets a rollback row a resolver wrote first (here written by hand while
     * the transaction is open) fails, rolls back every shard and names the shards and the xid.
     */
    @Test
    void aCommitMeetingARollbackRowRollsBackEverywhereAndSaysSo() throws Exception {
        generalLog(20, true, null);
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance - 40 WHERE id = 1");
            s.executeUpdate("UPDATE accounts SET balance = balance + 40 WHERE id = 1001");
            List<String> starts = generalLog(20, false, "XA START %");
            assertThat(starts).hasSize(1);
            String gtrid = starts.get(0).replaceAll("^XA START '([^']+)'.*$", "$1");
            Xid xid = Xid.parse(gtrid);
            assertThat(xid).as(starts.get(0)).isNotNull();
            assertThat(xid.manager()).as("the first shard reached manages it").isEqualTo(10);
            cluster.onShard(
                    10, "INSERT INTO shardgate.twophase_decisions (id, outcome) VALUES ('" + gtrid + "', 'rollback')");
            assertThatThrownBy(() -> s.execute("COMMIT")).isInstanceOfSatisfying(SQLException.class, e -> {
                assertThat(e.getErrorCode()).isEqualTo(1402);
                assertThat(e.getMessage()).contains(gtrid, "hostgroups [10, 20]", "a resolver rolled it back first");
            });
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1");
            s.execute("COMMIT");
        }
        assertThat(balance(1)).isEqualTo(101);
        assertThat(balance(1001)).isEqualTo(100);
        assertThat(prepared(10)).isEmpty();
        assertThat(prepared(20)).isEmpty();
    }

    private static void ensureDecisionTable(int hostgroup) throws SQLException {
        cluster.onShard(
                hostgroup,
                new io.shardgate.router.twophase.DecisionTable().createSteps().toArray(String[]::new));
    }

    /** Commit rows in the shard's decision table. */
    private static int commitRows(int hostgroup) throws SQLException {
        try (Connection c = cluster.direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT COUNT(*) FROM shardgate.twophase_decisions WHERE outcome = 'commit'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** The decision row of {@code xid} on the shard, or null. */
    private static String decisionRow(int hostgroup, Xid xid) throws SQLException {
        try (Connection c = cluster.direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT outcome FROM shardgate.twophase_decisions WHERE id = '" + xid.gtrid() + "'")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /** Statements on the shard waiting to insert into the decision table (the fence). */
    private static int fenceWaits(int hostgroup) {
        try (Connection c = cluster.direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT COUNT(*) FROM information_schema.processlist WHERE command = 'Query'"
                                + " AND info LIKE 'INSERT INTO `shardgate`.`twophase_decisions`%'")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** "status body" of an HTTP request to the router's control endpoint. */
    private static String http(String method, String path) throws Exception {
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(
                                        java.net.URI.create("http://127.0.0.1:" + cluster.router.httpPort() + path))
                                .method(method, java.net.http.HttpRequest.BodyPublishers.noBody())
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + response.body();
    }

    private static void prepareOnShard(int hostgroup, Xid xid, String sql) throws SQLException {
        String id = xid.sql(hostgroup);
        cluster.onShard(hostgroup, "XA START " + id, sql, "XA END " + id, "XA PREPARE " + id);
    }

    /** XA PREPAREs the shard has run since it started (its Com_xa_prepare status counter). */
    private static long xaPrepares(int hostgroup) throws SQLException {
        try (Connection c = cluster.direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Com_xa_prepare'")) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(2);
        }
    }

    /** XA statements of a kind the shard has run since it started (a Com_xa_* status counter). */
    private static long xaStatements(int hostgroup, String counter) throws SQLException {
        try (Connection c = cluster.direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE '" + counter + "'")) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(2);
        }
    }

    /** Whether ZooKeeper holds any two-phase decision (the design before the metadata manager did). */
    private static boolean zooKeeperHasDecisions() throws Exception {
        try (org.apache.curator.framework.CuratorFramework zk =
                org.apache.curator.framework.CuratorFrameworkFactory.newClient(
                        cluster.router.zooKeeperConnectString(), new org.apache.curator.retry.RetryOneTime(100))) {
            zk.start();
            return zk.checkExists().forPath("/shardgate/default/transactions/decisions") != null;
        }
    }

    private static double committed() {
        return registry().counter("shardgate.twophase.committed").count();
    }

    private static double gauge(String name) {
        return registry().get(name).gauge().value();
    }

    private static MeterRegistry registry() {
        return cluster.router.metrics().registry();
    }

    private static int balance(long id) throws SQLException {
        try (Connection c = cluster.direct(id < 1000 ? 10 : 20);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT balance FROM accounts WHERE id = " + id)) {
            assertThat(rs.next()).as("account %d exists", id).isTrue();
            return rs.getInt(1);
        }
    }

    private static int count(int hostgroup, String where) throws SQLException {
        try (Connection c = cluster.direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM accounts WHERE " + where)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** The global ids XA RECOVER lists on the shard. */
    static List<String> prepared(int hostgroup) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = cluster.direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("XA RECOVER")) {
            while (rs.next()) {
                out.add(rs.getString(4).substring(0, rs.getInt(2)));
            }
        }
        return out;
    }

    private static String describe(int hostgroup) {
        StringBuilder out = new StringBuilder();
        try (Connection c = cluster.direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT p.id, p.user, p.command, p.state, p.info, t.trx_state"
                        + " FROM information_schema.processlist p LEFT JOIN information_schema.innodb_trx t"
                        + " ON t.trx_mysql_thread_id = p.id")) {
            while (rs.next()) {
                out.append("\n  ");
                for (int i = 1; i <= 6; i++) {
                    out.append(rs.getString(i)).append(" | ");
                }
            }
        } catch (SQLException e) {
            out.append(e);
        }
        return out.toString();
    }

    /** Statements on the shard waiting for row 1002's lock (MariaDB shows them in state Statistics). */
    private static int lockWaits(int hostgroup) {
        try (Connection c = cluster.direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT COUNT(*) FROM information_schema.processlist WHERE command = 'Query'"
                                + " AND info = 'SELECT * FROM accounts WHERE id = 1002 FOR UPDATE'")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Polls a condition (no timing decides the result: only whether it ever holds). */
    static final class FaultWait {
        static void until(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!condition.getAsBoolean()) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("not within 30 s: " + what);
                }
                Thread.sleep(20);
            }
        }
    }
}
