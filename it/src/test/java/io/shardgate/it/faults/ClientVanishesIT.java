package io.shardgate.it.faults;

import static io.shardgate.it.faults.FaultCluster.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that vanish (socket closed without COM_QUIT, as a killed application's) in the middle
 * of a result or of a transaction (fault matrix, "client disconnects"): the backend connection is
 * closed rather than returned, the server rolls the transaction back and frees its locks, and the
 * next sessions borrowing from the pool see nothing of the vanished one. One event loop, so there is
 * one pool partition and the next borrower would get the vanished session's connection first.
 */
@Timeout(60)
class ClientVanishesIT {
    private static final long ROW = 1;
    private static final int BORROWERS = 5;

    @TempDir
    static Path dir;

    private static FaultCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new FaultCluster(dir);
        cluster.createItems();
        cluster.onShard(10, "INSERT INTO items VALUES (" + ROW + ", 7, 'seven')");
        cluster.startRouter("io_threads: 1", false);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void noTransactionOpenOnTheShard() throws Exception {
        awaitNoOpenTransaction();
    }

    @Test
    void vanishingMidResultClosesTheBackendConnectionAndStopsTheQuery() throws Exception {
        Connection c = cluster.proxied(Driver.MARIADB);
        Statement s = c.createStatement();
        s.setFetchSize(100); // stream: the driver reads rows as the application asks for them
        ResultSet rs = s.executeQuery("SELECT seq, REPEAT('x', 1000) FROM seq_1_to_2000000");
        for (int i = 0; i < 500; i++) {
            assertThat(rs.next()).isTrue();
        }
        c.abort(Runnable::run); // the socket closes with about 2 GB of the result unsent
        eventually("the shard stops sending the result", Duration.ofSeconds(30), () -> runningOnShard("seq_1_to") == 0);
        nextBorrowersSeeACleanSession();
    }

    @Test
    void vanishingMidTransactionRollsBackAndFreesTheRow() throws Exception {
        Connection c = cluster.proxied(Driver.MARIADB);
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            assertThat(s.executeUpdate("UPDATE items SET qty = 999, note = 'dirty' WHERE id = " + ROW))
                    .isEqualTo(1);
        }
        c.abort(Runnable::run);
        assertRowUnchangedAndFree();
        nextBorrowersSeeACleanSession();
    }

    @Test
    void vanishingWhileATransactionsStatementRunsRollsBack() throws Exception {
        // Connector/J's abort closes the socket at once, even while another thread waits for a result
        Connection c = cluster.proxied(Driver.MYSQL);
        c.setAutoCommit(false);
        Statement s = c.createStatement();
        assertThat(s.executeUpdate("UPDATE items SET qty = 999, note = 'dirty' WHERE id = " + ROW))
                .isEqualTo(1);
        CompletableFuture<Void> sleeping = CompletableFuture.runAsync(() -> {
            try {
                s.executeQuery("SELECT SLEEP(30)");
            } catch (SQLException e) {
                // the abort below ends it
            }
        });
        eventually("the statement runs on the shard", Duration.ofSeconds(10), () -> runningOnShard("SLEEP(30)") == 1);
        c.abort(Runnable::run);
        sleeping.join();
        assertRowUnchangedAndFree();
        eventually(
                "the statement is gone from the shard", Duration.ofSeconds(30), () -> runningOnShard("SLEEP(30)") == 0);
        nextBorrowersSeeACleanSession();
    }

    @Test
    void vanishingWithUserVariablesLeavesThemToNoOtherSession() throws Exception {
        Connection c = cluster.proxied(Driver.MARIADB);
        try (Statement s = c.createStatement()) {
            s.execute("SET @secret = 42, SESSION sql_mode = 'ANSI_QUOTES'");
            try (ResultSet rs = s.executeQuery("SELECT @secret")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(42);
            }
        }
        c.abort(Runnable::run);
        nextBorrowersSeeACleanSession();
    }

    /**
     * New sessions, one after another (each gets the most recently returned connection first):
     * they read the committed row, and their server session has no variable, transaction or mode
     * of the vanished one.
     */
    private static void nextBorrowersSeeACleanSession() throws SQLException {
        for (int i = 0; i < BORROWERS; i++) {
            try (Connection c = cluster.proxied(i % 2 == 0 ? Driver.MARIADB : Driver.MYSQL);
                    Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT qty, note FROM items WHERE id = " + ROW)) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1))
                            .as("borrower %d reads the committed row", i)
                            .isEqualTo(7);
                    assertThat(rs.getString(2)).isEqualTo("seven");
                }
                // no table: the schema's default hostgroup 10, the shard of the row above
                try (ResultSet rs =
                        s.executeQuery("SELECT @secret, @@in_transaction, @@sql_mode LIKE '%ANSI_QUOTES%'")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getObject(1))
                            .as("borrower %d sees no user variable", i)
                            .isNull();
                    assertThat(rs.getInt(2))
                            .as("borrower %d is in no transaction", i)
                            .isZero();
                    assertThat(rs.getInt(3))
                            .as("borrower %d has the default sql_mode", i)
                            .isZero();
                }
            }
        }
    }

    /** The vanished session's UPDATE is rolled back and its row lock released (checked on the shard). */
    private static void assertRowUnchangedAndFree() throws Exception {
        awaitNoOpenTransaction();
        try (Connection direct = cluster.direct(10);
                Statement s = direct.createStatement()) {
            s.execute("SET SESSION innodb_lock_wait_timeout = 5");
            try (ResultSet rs = s.executeQuery("SELECT qty, note FROM items WHERE id = " + ROW)) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(7);
                assertThat(rs.getString(2)).isEqualTo("seven");
            }
            // another session can take the row's lock at once
            try (ResultSet rs = s.executeQuery("SELECT qty FROM items WHERE id = " + ROW + " FOR UPDATE")) {
                assertThat(rs.next()).isTrue();
            }
        }
    }

    private static void awaitNoOpenTransaction() throws InterruptedException {
        eventually("no transaction open on the shard", Duration.ofSeconds(30), () -> {
            try (Connection direct = cluster.direct(10);
                    Statement s = direct.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.INNODB_TRX")) {
                rs.next();
                return rs.getInt(1) == 0;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Statements running on the shard whose text contains {@code text}. */
    private static int runningOnShard(String text) {
        try (Connection direct = cluster.direct(10);
                Statement s = direct.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <>"
                        + " CONNECTION_ID() AND INFO LIKE '%" + text + "%'")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
