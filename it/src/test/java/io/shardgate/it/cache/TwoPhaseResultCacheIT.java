package io.shardgate.it.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.cache.CacheStats;
import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
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
 * The result cache in front of a {@code two_phase} schema: accounts below 1000 live on hostgroup 10,
 * the rest on 20, and every read of them is cached for ten minutes. A transaction that wrote on both
 * shards commits through XA (prepare, decision, commit) or rolls back with the router answering the
 * client itself; the cached single-shard and merged multi-shard reads of every other client must show
 * the commit at once and never the rolled-back writes.
 */
class TwoPhaseResultCacheIT {
    private static final String USER = "shardgate";
    private static final String PASSWORD = "sg-secret";
    private static final String SUM = "SELECT SUM(balance) FROM accounts";

    @TempDir
    static Path dir;

    private static MariaDbServer shard10;
    private static MariaDbServer shard20;
    private static Shardgate router;

    @BeforeAll
    static void start() throws Exception {
        shard10 = server();
        shard20 = server();
        for (MariaDbServer server : new MariaDbServer[] {shard10, shard20}) {
            try (Connection c = Driver.MARIADB.connect(server.port(), "bank", USER, PASSWORD);
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance INT NOT NULL) ENGINE=InnoDB");
            }
        }
        router = Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {port: 0, http_port: 0, node_id: 9, data_dir: \"" + dir.resolve("router") + "\"}",
                "users: [{name: app, password: app-pw}]",
                "hostgroups:",
                "  - {id: 10, writer: \"" + shard10.address() + "\", user: " + USER + ", password: " + PASSWORD + "}",
                "  - {id: 20, writer: \"" + shard20.address() + "\", user: " + USER + ", password: " + PASSWORD + "}",
                "schemas:",
                "  - name: bank",
                "    default_hostgroup: 10",
                "    transaction_mode: two_phase",
                "    tables:",
                "      - {name: accounts, strategy: range, column: id, ranges: [{below: 1000, hostgroup: 10},"
                        + " {hostgroup: 20}]}",
                "cache: {enabled: true, max_bytes: 16777216}",
                "query_rules:",
                "  - {match_digest: \"FROM `?accounts\", cache_ttl_ms: 600000}",
                "")));
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO accounts VALUES (1, 100), (2, 100), (1001, 100), (1002, 100)");
        }
    }

    @AfterAll
    static void stop() {
        if (router != null) {
            router.close();
        }
        for (MariaDbServer server : new MariaDbServer[] {shard10, shard20}) {
            if (server != null) {
                server.close();
            }
        }
    }

    @Test
    void cachedReadsShowATwoPhaseCommitAtOnceAndNeverARolledBackWrite() throws Exception {
        try (Connection writer = connect();
                Statement w = writer.createStatement();
                Connection reader = connect();
                Statement r = reader.createStatement()) {
            int one = balance(r, 1);
            int far = balance(r, 1001);
            long total = sum(r);
            CacheStats filled = stats();
            assertThat(balance(r, 1)).isEqualTo(one);
            assertThat(balance(r, 1001)).isEqualTo(far);
            assertThat(sum(r)).isEqualTo(total);
            assertThat(stats().hits() - filled.hits())
                    .as("the second reads came from the cache")
                    .isEqualTo(3);

            w.execute("BEGIN");
            w.executeUpdate("UPDATE accounts SET balance = balance - 7 WHERE id = 1");
            w.executeUpdate("UPDATE accounts SET balance = balance + 7 WHERE id = 1001");
            w.executeUpdate("INSERT INTO accounts VALUES (1003, 5)");
            assertThat(balance(w, 1)).as("the transaction reads its own write").isEqualTo(one - 7);
            assertThat(balance(r, 1)).as("others see the committed value").isEqualTo(one);
            assertThat(sum(r)).isEqualTo(total);
            w.execute("COMMIT");
            assertThat(xaPrepares()).as("the commit ran both phases").isPositive();

            assertThat(balance(r, 1)).isEqualTo(one - 7);
            assertThat(balance(r, 1001)).isEqualTo(far + 7);
            assertThat(sum(r)).isEqualTo(total + 5);

            w.execute("BEGIN");
            w.executeUpdate("UPDATE accounts SET balance = balance + 1000 WHERE id = 2");
            w.executeUpdate("UPDATE accounts SET balance = balance + 1000 WHERE id = 1002");
            assertThat(sum(w)).isEqualTo(total + 2005);
            w.execute("ROLLBACK");
            assertThat(sum(r)).isEqualTo(total + 5);
            assertThat(sum(w)).isEqualTo(total + 5);

            // an autocommit statement on both shards runs as its own two-phase transaction
            w.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id IN (2, 1002)");
            assertThat(sum(r)).isEqualTo(total + 7);
            assertThat(balance(r, 1001)).isEqualTo(far + 7);
        }
        assertThat(prepared(shard10) + prepared(shard20)).isZero();
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

    private static CacheStats stats() {
        return router.resultCache().control().stats();
    }

    private static int balance(Statement s, long id) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT balance FROM accounts WHERE id = " + id)) {
            assertThat(rs.next()).isTrue();
            return rs.getInt(1);
        }
    }

    private static long sum(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery(SUM)) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }

    /** XA PREPAREs the shards ran so far (a transaction's first shard, its metadata manager, runs none). */
    private static long xaPrepares() throws SQLException {
        long n = 0;
        for (MariaDbServer server : new MariaDbServer[] {shard10, shard20}) {
            try (Connection c = Driver.MARIADB.connect(server.port(), "bank", USER, PASSWORD);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Com_xa_prepare'")) {
                assertThat(rs.next()).isTrue();
                n += rs.getLong(2);
            }
        }
        return n;
    }

    private static int prepared(MariaDbServer server) throws SQLException {
        try (Connection c = Driver.MARIADB.connect(server.port(), "bank", USER, PASSWORD);
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
