package io.shardgate.it.hostgroup;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * A MariaDB primary and a replica of it (real asynchronous replication, binlog positions), each
 * on a data directory the test names, so either can be SIGKILLed and started again on the same
 * port and data.
 */
final class ReplicatedHostgroup implements AutoCloseable {
    static final String USER = "router";
    static final String PASSWORD = "router-pw";
    static final String SCHEMA = "rw";
    static final int PRIMARY_ID = 1;
    static final int REPLICA_ID = 2;
    /** Far above what any step needs on a quiet machine; only a hang reaches it. */
    static final Duration DEADLINE = Duration.ofSeconds(90);

    private final Path dir;
    MariaDbServer primary;
    MariaDbServer replica;

    private ReplicatedHostgroup(Path dir) {
        this.dir = dir;
    }

    static ReplicatedHostgroup start(Path dir) throws SQLException {
        ReplicatedHostgroup group = new ReplicatedHostgroup(dir);
        try {
            group.primary = primary(dir, 0);
            group.replica = replica(dir, 0);
            group.replicate();
            return group;
        } catch (RuntimeException | SQLException e) {
            group.close();
            throw e;
        }
    }

    static MariaDbServer primary(Path dir, int port) {
        return MariaDbServer.builder()
                .port(port)
                .dataDir(dir.resolve("primary"))
                .database(SCHEMA)
                .user(USER, PASSWORD)
                .innodbBufferPoolSize("32M")
                .arg("--server-id=" + PRIMARY_ID)
                .arg("--log-bin=primary-bin")
                .arg("--binlog-format=ROW")
                .start();
    }

    static MariaDbServer replica(Path dir, int port) {
        return MariaDbServer.builder()
                .port(port)
                .dataDir(dir.resolve("replica"))
                .database(SCHEMA)
                .user(USER, PASSWORD)
                .innodbBufferPoolSize("32M")
                .arg("--server-id=" + REPLICA_ID)
                .arg("--read-only=1")
                .arg("--relay-log=replica-relay")
                .start();
    }

    /** Points the replica at the primary's current binlog position and starts it. */
    private void replicate() throws SQLException {
        String file;
        long position;
        try (Connection c = root(primary);
                Statement s = c.createStatement()) {
            s.execute("CREATE USER IF NOT EXISTS 'repl'@'%' IDENTIFIED BY 'repl-pw'");
            s.execute("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'");
            try (ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
                rs.next();
                file = rs.getString(1);
                position = rs.getLong(2);
            }
        }
        try (Connection c = root(replica);
                Statement s = c.createStatement()) {
            s.execute("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=" + primary.port()
                    + ", MASTER_USER='repl', MASTER_PASSWORD='repl-pw', MASTER_LOG_FILE='" + file
                    + "', MASTER_LOG_POS=" + position + ", MASTER_USE_GTID=no, MASTER_SSL=0, MASTER_CONNECT_RETRY=1");
            s.execute("START SLAVE");
        }
    }

    static Connection root(MariaDbServer server) throws SQLException {
        return Driver.MARIADB.connect(server.port(), null, "root", server.rootPassword());
    }

    /** Waits until the replica has applied everything the primary has written so far. */
    void awaitReplicaCaughtUp() throws SQLException, InterruptedException {
        String file;
        long position;
        try (Connection c = root(primary);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
            rs.next();
            file = rs.getString(1);
            position = rs.getLong(2);
        }
        try (Connection c = root(replica);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT MASTER_POS_WAIT('" + file + "', " + position + ", " + DEADLINE.toSeconds() + ")")) {
            rs.next();
            if (rs.getLong(1) < 0 || rs.wasNull()) {
                throw new IllegalStateException(
                        "replica did not reach " + file + ":" + position + ": " + replicationErrors());
            }
        }
    }

    /** The replica's replication thread states and last errors, for a failure message. */
    String replicationErrors() throws SQLException {
        try (Connection c = root(replica);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW SLAVE STATUS")) {
            if (!rs.next()) {
                return "not a replica";
            }
            return "IO " + rs.getString("Slave_IO_Running") + " " + rs.getString("Last_IO_Error") + ", SQL "
                    + rs.getString("Slave_SQL_Running") + " " + rs.getString("Last_SQL_Error") + ", at "
                    + rs.getString("Relay_Master_Log_File") + ":" + rs.getString("Exec_Master_Log_Pos");
        }
    }

    /** SIGKILLs a server: no shutdown, no goodbye to its clients beyond what the kernel sends. */
    static void kill(MariaDbServer server) throws InterruptedException {
        ProcessHandle process = ProcessHandle.of(server.pid()).orElseThrow();
        process.destroyForcibly();
        try {
            process.onExit().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("mariadbd " + server.pid() + " did not die", e);
        }
        server.close(); // deletes its temporary files, keeps the named data directory
    }

    /** Polls {@code condition} until it holds; false after {@link #DEADLINE}. */
    static boolean await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }

    static Map<String, String> clientOptions() {
        return Map.of("connectTimeout", "30000", "socketTimeout", "60000");
    }

    @Override
    public void close() {
        if (replica != null) {
            replica.close();
        }
        if (primary != null) {
            primary.close();
        }
    }
}
