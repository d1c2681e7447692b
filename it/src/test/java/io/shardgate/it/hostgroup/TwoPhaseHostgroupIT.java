package io.shardgate.it.hostgroup;

import static io.shardgate.it.hostgroup.ReplicatedHostgroup.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.routing.ServerStatus;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code two_phase} schema over hostgroups with readers and server states: hostgroup 10 has a
 * writer and a reader, hostgroup 20 a writer; accounts below 1000 live on 10, the rest on 20. The
 * reader is a server of its own holding different balances (999), so a read that reached it shows.
 * Reads inside a transaction run on the writer, in its XA branch; a writer set OFFLINE_SOFT or
 * SHUNNED in the middle of a transaction lets that transaction finish (its branch's connection is
 * pinned) while new work there is refused with 9002.
 */
class TwoPhaseHostgroupIT {
    private static final String USER = "shardgate";
    private static final String PASSWORD = "sg-secret";

    @TempDir
    static Path dir;

    private static MariaDbServer writer10;
    private static MariaDbServer reader10;
    private static MariaDbServer writer20;
    private static Shardgate router;

    @BeforeAll
    static void start() throws Exception {
        writer10 = server();
        reader10 = server();
        writer20 = server();
        for (MariaDbServer server : new MariaDbServer[] {writer10, reader10, writer20}) {
            try (Connection c = direct(server);
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance INT NOT NULL) ENGINE=InnoDB");
            }
        }
        onServer(writer10, "INSERT INTO accounts VALUES (1, 100), (2, 100)");
        onServer(reader10, "INSERT INTO accounts VALUES (1, 999), (2, 999)");
        onServer(writer20, "INSERT INTO accounts VALUES (1001, 100), (1002, 100)");
        router = Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {port: 0, http_port: 0, node_id: 8, data_dir: \"" + dir.resolve("router") + "\"}",
                "users: [{name: app, password: app-pw}]",
                "hostgroups:",
                "  - id: 10",
                "    writer: \"" + writer10.address() + "\"",
                "    readers: [{address: \"" + reader10.address() + "\", weight: 1, max_connections: 10}]",
                "    user: " + USER,
                "    password: " + PASSWORD,
                "    monitor: {enabled: false}",
                "  - id: 20",
                "    writer: \"" + writer20.address() + "\"",
                "    user: " + USER,
                "    password: " + PASSWORD,
                "    monitor: {enabled: false}",
                "schemas:",
                "  - name: bank",
                "    default_hostgroup: 10",
                "    transaction_mode: two_phase",
                "    tables:",
                "      - {name: accounts, strategy: range, column: id, ranges: [{below: 1000, hostgroup: 10},"
                        + " {hostgroup: 20}]}",
                "")));
    }

    @AfterAll
    static void stop() {
        if (router != null) {
            router.close();
        }
        for (MariaDbServer server : new MariaDbServer[] {writer10, reader10, writer20}) {
            if (server != null) {
                server.close();
            }
        }
    }

    @Test
    void readsInsideATwoPhaseTransactionRunOnTheWriterInItsBranch() throws Exception {
        int one = directBalance(writer10, 1);
        int two = directBalance(writer10, 2);
        int b1 = directBalance(writer20, 1001);
        int b2 = directBalance(writer20, 1002);
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            assertThat(balance(s, 1))
                    .as("outside a transaction a read goes to the reader")
                    .isEqualTo(999);
            s.execute("BEGIN");
            assertThat(balance(s, 1)).as("inside: the writer").isEqualTo(one);
            s.executeUpdate("UPDATE accounts SET balance = balance - 10 WHERE id = 2");
            // the branch on 10 sees its own uncommitted write: the read ran in it
            assertThat(balance(s, 2)).isEqualTo(two - 10);
            s.executeUpdate("UPDATE accounts SET balance = balance + 10 WHERE id = 1002");
            s.execute("COMMIT");

            // a transaction that only reads on 10 and writes on 20
            s.execute("BEGIN");
            assertThat(balance(s, 2)).isEqualTo(two - 10);
            s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1001");
            s.execute("COMMIT");
        }
        assertThat(directBalance(writer10, 2)).isEqualTo(two - 10);
        assertThat(directBalance(writer20, 1002)).isEqualTo(b2 + 10);
        assertThat(directBalance(writer20, 1001)).isEqualTo(b1 + 1);
        assertThat(directBalance(reader10, 2))
                .as("the reader was never written")
                .isEqualTo(999);
        assertThat(prepared(writer10) + prepared(writer20)).isZero();
    }

    @Test
    void aWriterSetOfflineSoftMidTransactionLetsTheTransactionFinish() throws Exception {
        int one = directBalance(writer10, 1);
        int b1 = directBalance(writer20, 1001);
        try (Connection c = connect();
                Statement s = c.createStatement();
                Connection other = connect();
                Statement o = other.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance - 5 WHERE id = 1");
            s.executeUpdate("UPDATE accounts SET balance = balance + 5 WHERE id = 1001");
            router.servers().setStatus(20, writer20.address(), ServerStatus.OFFLINE_SOFT);
            try {
                SQLException refused = catchThrowableOfType(
                        SQLException.class, () -> o.executeUpdate("UPDATE accounts SET balance = 0 WHERE id = 1002"));
                assertThat(refused.getErrorCode()).isEqualTo(9002);
                assertThat(refused.getMessage()).contains("OFFLINE_SOFT");
                // the transaction goes on and commits on its pinned connection
                s.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1001");
                s.execute("COMMIT");
                assertThat(await(() -> router.servers()
                                        .get(20, writer20.address())
                                        .pool()
                                        .open()
                                == 0))
                        .as("the drained connection closed once the transaction released it")
                        .isTrue();
            } finally {
                router.servers().setStatus(20, writer20.address(), ServerStatus.ONLINE);
            }
            assertThat(balance(o, 1002)).as("hostgroup 20 serves again").isEqualTo(directBalance(writer20, 1002));
        }
        assertThat(directBalance(writer10, 1)).isEqualTo(one - 5);
        assertThat(directBalance(writer20, 1001)).isEqualTo(b1 + 6);
        assertThat(prepared(writer10) + prepared(writer20)).isZero();
    }

    @Test
    void aWriterShunnedMidTransactionLetsTheTransactionFinishWhileNewWorkThereFails() throws Exception {
        int two = directBalance(writer10, 2);
        int one = directBalance(writer10, 1);
        int b1 = directBalance(writer20, 1001);
        int b2 = directBalance(writer20, 1002);
        try (Connection c = connect();
                Statement s = c.createStatement();
                Connection other = connect();
                Statement o = other.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("UPDATE accounts SET balance = balance + 3 WHERE id = 1002");
            // what the monitor does after failed health checks
            router.servers().setStatus(20, writer20.address(), ServerStatus.SHUNNED);
            try {
                SQLException refused = catchThrowableOfType(
                        SQLException.class, () -> o.executeUpdate("UPDATE accounts SET balance = 0 WHERE id = 1001"));
                assertThat(refused.getErrorCode()).isEqualTo(9002);
                assertThat(refused.getMessage()).contains("SHUNNED");

                // another transaction reaching the shunned writer with its second statement: that
                // statement fails and leaves nothing; the transaction goes on and commits the rest
                o.execute("BEGIN");
                o.executeUpdate("UPDATE accounts SET balance = balance - 1 WHERE id = 2");
                SQLException midTransaction = catchThrowableOfType(
                        SQLException.class,
                        () -> o.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1001"));
                assertThat(midTransaction.getErrorCode()).isEqualTo(9002);
                o.execute("COMMIT");

                // the transaction with a branch on the shunned writer runs on, and both branches commit
                s.executeUpdate("UPDATE accounts SET balance = balance - 3 WHERE id = 1");
                s.execute("COMMIT");
            } finally {
                router.servers().setStatus(20, writer20.address(), ServerStatus.ONLINE);
            }
        }
        assertThat(directBalance(writer20, 1002)).isEqualTo(b2 + 3);
        assertThat(directBalance(writer10, 1)).isEqualTo(one - 3);
        assertThat(directBalance(writer10, 2)).isEqualTo(two - 1);
        assertThat(directBalance(writer20, 1001))
                .as("refused statements left nothing")
                .isEqualTo(b1);
        assertThat(prepared(writer10) + prepared(writer20)).isZero();
    }

    private static MariaDbServer server() {
        return MariaDbServer.builder()
                .database("bank")
                .user(USER, PASSWORD)
                .innodbBufferPoolSize("32M")
                .start();
    }

    private static Connection connect() throws SQLException {
        return Driver.MARIADB.connect(router.mysqlPort(), "bank", "app", "app-pw", Map.of("socketTimeout", "60000"));
    }

    private static Connection direct(MariaDbServer server) throws SQLException {
        return Driver.MARIADB.connect(server.port(), "bank", USER, PASSWORD);
    }

    private static void onServer(MariaDbServer server, String sql) throws SQLException {
        try (Connection c = direct(server);
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static int balance(Statement s, long id) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT balance FROM accounts WHERE id = " + id)) {
            assertThat(rs.next()).isTrue();
            return rs.getInt(1);
        }
    }

    private static int directBalance(MariaDbServer server, long id) throws SQLException {
        try (Connection c = direct(server);
                Statement s = c.createStatement()) {
            return balance(s, id);
        }
    }

    private static int prepared(MariaDbServer server) throws SQLException {
        try (Connection c = direct(server);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("XA RECOVER")) {
            int n = 0;
            while (rs.next()) {
                n++;
            }
            return n;
        }
    }
}
