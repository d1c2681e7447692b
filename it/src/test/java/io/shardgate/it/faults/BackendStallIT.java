package io.shardgate.it.faults;

import static io.shardgate.it.faults.FaultCluster.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard whose mariadbd is stopped with SIGSTOP (fault matrix, "backend stops answering"): the
 * kernel still accepts and acknowledges, so only the router's own timers notice. A statement in
 * flight gets ERROR 3024 after {@code server.query_timeout_millis}, a new backend connection
 * ERROR 1043 after {@code connect_timeout_millis}, a session with a transaction there is
 * disconnected, and sessions of the other shard — on the same, single event loop — keep running.
 * After SIGCONT the shard serves again and the interrupted transaction was rolled back.
 */
class BackendStallIT {
    private static final int QUERY_TIMEOUT_MILLIS = 2000;
    /** Generous bound for a timer to fire and the error to arrive on a busy machine (not a benchmark). */
    private static final long SLACK_MILLIS = 10_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void stoppedBackendTimesOutItsStatementsWithoutBlockingOtherSessions() throws Exception {
        try (FaultCluster cluster = new FaultCluster(dir)) {
            cluster.createItems();
            long row10 = 1;
            long row20 = FaultCluster.SPLIT + 1;
            long txRow = FaultCluster.SPLIT + 2;
            cluster.onShard(10, "INSERT INTO items VALUES (" + row10 + ", 0, 'a')");
            cluster.onShard(20, "INSERT INTO items VALUES (" + row20 + ", 0, 'b'), (" + txRow + ", 0, 'c')");
            // one event loop for every session: progress of others during the stall shows it never blocks;
            // no monitor, so the stopped server is not shunned and every statement meets the timeouts
            Shardgate router =
                    cluster.startRouter("query_timeout_millis: " + QUERY_TIMEOUT_MILLIS + ", io_threads: 1", false);
            String shard20 = cluster.shard(20).address();

            try (Connection tx = cluster.proxied(Driver.MARIADB);
                    Connection a = cluster.proxied(Driver.MARIADB);
                    Statement txs = tx.createStatement();
                    Statement as = a.createStatement();
                    OtherShardLoad other = new OtherShardLoad(cluster, row10)) {
                tx.setAutoCommit(false);
                assertThat(txs.executeUpdate("UPDATE items SET qty = 5 WHERE id = " + txRow))
                        .isEqualTo(1);
                assertThat(qty(as, row20)).isZero(); // a second hostgroup-20 connection, idle in the pool after
                eventually("the other shard's load runs", Duration.ofSeconds(30), () -> other.ok() > 20);

                cluster.signal(20, "STOP");
                try {
                    long okBefore = other.ok();
                    // a statement sent to the stopped server: the query timeout
                    SQLException timeout = timed(() -> qty(as, row20), QUERY_TIMEOUT_MILLIS);
                    assertThat(timeout.getErrorCode()).isEqualTo(3024);
                    assertThat(timeout.getMessage())
                            .contains(shard20)
                            .contains("sent nothing for " + QUERY_TIMEOUT_MILLIS + " ms (server.query_timeout_millis)");
                    // the session stays usable: it held nothing on that server
                    assertThat(qty(as, row10)).isGreaterThanOrEqualTo(0);

                    // no idle connection left: a new one connects, and its login never comes
                    SQLException connect = timed(() -> qty(as, row20), 2L * FaultCluster.CONNECT_TIMEOUT_MILLIS);
                    assertThat(connect.getErrorCode()).isEqualTo(1043);
                    assertThat(connect.getMessage())
                            .contains("backend " + shard20 + " did not complete login within "
                                    + FaultCluster.CONNECT_TIMEOUT_MILLIS + " ms");
                    assertThat(qty(as, row10)).isGreaterThanOrEqualTo(0);

                    // the transaction's server session is unreachable: the error, then the session ends
                    SQLException inTransaction = timed(
                            () -> txs.executeUpdate("UPDATE items SET qty = 6 WHERE id = " + txRow),
                            QUERY_TIMEOUT_MILLIS);
                    assertThat(inTransaction.getErrorCode()).isEqualTo(3024);
                    assertThat(tx.isValid(5))
                            .as("session with a transaction on the stopped shard")
                            .isFalse();

                    assertThat(other.ok())
                            .as("the other shard's sessions ran during the stall")
                            .isGreaterThan(okBefore + 20);
                    assertThat(other.failures()).isEmpty();
                } finally {
                    cluster.signal(20, "CONT");
                }

                eventually("the shard serves again after SIGCONT", Duration.ofSeconds(15), () -> {
                    try {
                        return qty(as, row20) == 0;
                    } catch (SQLException e) {
                        return false;
                    }
                });
                // the interrupted transaction was rolled back and holds no lock once its connection is gone
                try (Connection direct = cluster.direct(20);
                        Statement s = direct.createStatement()) {
                    s.execute("SET SESSION innodb_lock_wait_timeout = 5");
                    eventually("the row is free", Duration.ofSeconds(20), () -> {
                        try {
                            return s.executeUpdate("UPDATE items SET note = 'free' WHERE id = " + txRow) == 1;
                        } catch (SQLException e) {
                            return false; // 1205 lock wait timeout: the server has not seen the close yet
                        }
                    });
                    assertThat(qty(s, txRow)).isZero();
                }
                other.close();
                assertThat(other.failures()).isEmpty();
            }
        }
    }

    interface SqlCall {
        void run() throws SQLException;
    }

    /** Runs {@code call}, which must fail, within {@code expectedMillis} plus slack; returns the error. */
    private static SQLException timed(SqlCall call, long expectedMillis) {
        long start = System.nanoTime();
        SQLException e = catchThrowableOfType(SQLException.class, call::run);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat((Throwable) e).as("the statement failed").isNotNull();
        assertThat(millis).as("answered within the timeout and slack: %s", e).isLessThan(expectedMillis + SLACK_MILLIS);
        return e;
    }

    private static long qty(Statement s, long id) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT qty FROM items WHERE id = " + id)) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }

    /** One client updating and reading a row of hostgroup 10 in a loop. */
    private static final class OtherShardLoad implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong ok = new AtomicLong();
        private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        private final Thread thread;

        OtherShardLoad(FaultCluster cluster, long row) {
            thread = new Thread(
                    () -> {
                        try (Connection c = cluster.proxied(Driver.MYSQL);
                                Statement s = c.createStatement()) {
                            while (running.get()) {
                                s.executeUpdate("UPDATE items SET qty = qty + 1 WHERE id = " + row);
                                qty(s, row);
                                ok.incrementAndGet();
                            }
                        } catch (SQLException | RuntimeException e) {
                            failures.add(e.toString());
                        }
                    },
                    "other-shard-load");
            thread.setDaemon(true);
            thread.start();
        }

        long ok() {
            return ok.get();
        }

        java.util.List<String> failures() {
            return java.util.List.copyOf(failures);
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(60_000);
        }
    }
}
