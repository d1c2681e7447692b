package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 23: a session's LAST_INSERT_ID() outlives the backend connection it was set on. The
 * connection an INSERT ran on stays with the session for five statements or one quiet second; after
 * that it goes back to the pool (and serves other sessions), and the router must still answer
 * LAST_INSERT_ID(), {@code @@identity} and statements using them as MariaDB does on one connection:
 * after the hold by count and by time, after an INSERT with an explicit id (which keeps the value),
 * after LAST_INSERT_ID(expr), after another session used the same backend connection, and when the
 * statements go to another hostgroup than the INSERT. Each script runs directly against MariaDB and
 * through Shardgate on freshly created tables, and the read responses are compared byte for byte.
 */
@ExtendWith(ProxyClusterExtension.class)
class Issue23LastInsertIdKeptIT {
    /** A line of a script run by the second session, B, between A's statements. */
    private static final String B = "B: ";
    /** A line that waits past the insert-id hold's quiet time. */
    private static final String QUIET = "QUIET";
    /** A line whose response is kept for the comparison. */
    private static final String READ = "READ ";

    private final ProxyCluster cluster;

    Issue23LastInsertIdKeptIT(ProxyCluster shared) {
        this.cluster = shared;
    }

    /** What session A (and B between its statements) run; the READ lines' responses are compared. */
    private static final List<String> SCRIPT = List.of(
            "INSERT INTO i23k_ids (note) VALUES ('a')",
            "SELECT 1",
            "SELECT 2",
            "SELECT 3",
            "SELECT 4",
            "SELECT 5",
            "SELECT 6",
            // the hold ended by count: A's connection went back; B inserts and sets its own on it
            B + "INSERT INTO i23k_ids (note) VALUES ('b')",
            B + "SELECT LAST_INSERT_ID(77)",
            B + "SELECT 1",
            B + "SELECT 2",
            B + "SELECT 3",
            B + "SELECT 4",
            B + "SELECT 5",
            READ + "SELECT LAST_INSERT_ID()",
            READ + "SELECT @@identity",
            READ + "SELECT LAST_INSERT_ID() + 1 AS next_id, @@last_insert_id",
            "INSERT INTO i23k_ids (id, note) VALUES (500, 'explicit')", // keeps LAST_INSERT_ID()
            QUIET,
            READ + "SELECT LAST_INSERT_ID()",
            "INSERT INTO i23k_child (parent) VALUES (LAST_INSERT_ID())",
            READ + "SELECT parent FROM i23k_child ORDER BY id",
            "SELECT LAST_INSERT_ID(42)",
            QUIET,
            B + "SELECT LAST_INSERT_ID(88)",
            READ + "SELECT LAST_INSERT_ID()",
            "INSERT INTO i23k_ids (note) VALUES ('c')",
            QUIET,
            READ + "SELECT note FROM i23k_ids WHERE id = LAST_INSERT_ID()",
            READ + "SELECT @@identity");

    /**
     * Multiplexing on: one backend connection, so B's statements run on the connection A's INSERT
     * left. Multiplexing off: A keeps its connection (B runs on its own, none shared).
     */
    @ParameterizedTest(name = "multiplexing {0}")
    @ValueSource(booleans = {true, false})
    void theSessionsValueSurvivesItsConnectionGoingBack(boolean multiplexing) throws Exception {
        List<String> direct =
                run(cluster.backend().port(), ProxyCluster.BACKEND_USER, ProxyCluster.BACKEND_PASSWORD, SCRIPT);
        List<String> viaRouter;
        try (Shardgate router = cluster.router(multiplexing ? 1 : 2, multiplexing)) {
            viaRouter = run(router.mysqlPort(), ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, SCRIPT);
        }
        assertThat(direct).as("directly").anyMatch(r -> r.contains("SELECT LAST_INSERT_ID(): "));
        assertThat(viaRouter)
                .as("through Shardgate (multiplexing %s) vs directly, byte for byte", multiplexing)
                .isEqualTo(direct);
    }

    /** What the INSERTs and reads of A (and B) give, on fresh tables (ids from 1 in both runs). */
    private List<String> run(int port, String user, String password, List<String> script) throws Exception {
        freshTables();
        List<String> seen = new ArrayList<>();
        try (RawMySqlClient a = RawMySqlClient.loggedIn(port, user, password, ProxyCluster.SCHEMA);
                RawMySqlClient b = RawMySqlClient.loggedIn(port, user, password, ProxyCluster.SCHEMA)) {
            for (String line : script) {
                if (line.equals(QUIET)) {
                    Thread.sleep(1_300); // past the hold's quiet second (a wait for state, not a timing)
                } else if (line.startsWith(B)) {
                    response(b, line.substring(B.length()));
                } else if (line.startsWith(READ)) {
                    String sql = line.substring(READ.length());
                    seen.add(sql + ": " + response(a, sql));
                } else {
                    response(a, line);
                }
            }
        }
        return seen;
    }

    private void freshTables() throws SQLException {
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("CREATE OR REPLACE TABLE " + ProxyCluster.SCHEMA
                    + ".i23k_ids (id INT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(10))");
            s.execute("CREATE OR REPLACE TABLE " + ProxyCluster.SCHEMA
                    + ".i23k_child (id INT AUTO_INCREMENT PRIMARY KEY, parent BIGINT)");
            s.execute("CREATE OR REPLACE TABLE " + ProxyCluster.SCHEMA
                    + ".i23k_other (id INT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(10)) AUTO_INCREMENT = 1000");
            s.execute("CREATE OR REPLACE TABLE " + ProxyCluster.SCHEMA
                    + ".i23k_sharded (id INT AUTO_INCREMENT PRIMARY KEY, k INT, note VARCHAR(10))");
        }
    }

    private static List<String> response(RawMySqlClient c, String sql) throws Exception {
        c.sendCommand(RawMySqlClient.comQuery(sql));
        List<String> packets = RawResults.readResponse(c, false);
        assertThat(packets).as("%s", sql).isNotEmpty().noneMatch(p -> p.contains(":ff"));
        return packets;
    }

    /**
     * Two hostgroups (on the same MariaDB, so the direct run sees every table): {@code i23k_other}
     * lives on hostgroup 20, everything else on 10. Statements reading LAST_INSERT_ID() run on
     * another connection than the INSERT that set it, while that one is still held and after.
     */
    @Test
    void theValueFollowsTheSessionAcrossHostgroups() throws Exception {
        List<String> script = List.of(
                "INSERT INTO i23k_other (note) VALUES ('o')", // hostgroup 20, id 1000
                READ + "SELECT LAST_INSERT_ID()", // no table: hostgroup 10
                READ + "SELECT @@identity",
                "INSERT INTO i23k_ids (note) VALUES ('a')", // hostgroup 10, id 1
                READ + "SELECT id, note FROM i23k_other WHERE id >= LAST_INSERT_ID() ORDER BY id", // on 20
                "INSERT INTO i23k_other (id, note) VALUES (5000, 'x')", // 20, explicit: keeps 1
                QUIET,
                READ + "SELECT LAST_INSERT_ID()",
                READ + "SELECT note FROM i23k_other WHERE id > LAST_INSERT_ID() ORDER BY id");
        List<String> direct =
                run(cluster.backend().port(), ProxyCluster.BACKEND_USER, ProxyCluster.BACKEND_PASSWORD, script);
        List<String> viaRouter;
        try (Shardgate router = twoHostgroupRouter()) {
            viaRouter = run(router.mysqlPort(), ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, script);
        }
        assertThat(viaRouter).as("through Shardgate vs directly, byte for byte").isEqualTo(direct);
    }

    /**
     * A multi-shard INSERT may set LAST_INSERT_ID() in each shard's server session (MariaDB's answer
     * would be the first id of the whole statement): the router does not know it, so reading it by
     * name is refused until a single-shard statement sets it again; one that sets nothing (an
     * explicit id) leaves it unknown.
     */
    @Test
    void aMultiShardInsertLeavesItUnknownUntilASingleShardInsertSetsIt() throws Exception {
        freshTables();
        try (Shardgate router = twoHostgroupRouter();
                RawMySqlClient a = RawMySqlClient.loggedIn(
                        router.mysqlPort(), ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, ProxyCluster.SCHEMA)) {
            System.out.println(
                    "EXPLAIN: "
                            + response(
                                    a,
                                    "EXPLAIN SHARDGATE INSERT INTO i23k_sharded (k, note) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')"));
            response(a, "INSERT INTO i23k_sharded (k, note) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
            assertThat(error(a, "SELECT LAST_INSERT_ID()")).contains("1235").contains("not known");
            assertThat(error(a, "SELECT @@identity")).contains("1235");

            response(a, "INSERT INTO i23k_ids (id, note) VALUES (900, 'e')"); // sets nothing
            assertThat(error(a, "SELECT LAST_INSERT_ID()")).contains("1235");

            response(a, "INSERT INTO i23k_ids (note) VALUES ('f')"); // generates 901
            assertThat(response(a, "SELECT LAST_INSERT_ID()")).anyMatch(p -> p.endsWith(":03393031")); // "901"
        }
    }

    /** The ERR a statement is answered with, as "code message". */
    private static String error(RawMySqlClient c, String sql) throws Exception {
        c.sendCommand(RawMySqlClient.comQuery(sql));
        RawMySqlClient.RawPacket p = c.readPacket();
        assertThat(p.isErr()).as("%s: %s", sql, p).isTrue();
        return p.err().code() + " " + p.err().message();
    }

    private Shardgate twoHostgroupRouter() throws Exception {
        Path dir = Files.createTempDirectory("shardgate-two-hostgroups-");
        String backend = "writer: \"" + cluster.backend().address() + "\", user: " + ProxyCluster.BACKEND_USER
                + ", password: " + ProxyCluster.BACKEND_PASSWORD;
        return Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, admin_port: 0, http_port: 0, data_dir: \"" + dir + "\"}",
                "users:",
                "  - {name: " + ProxyCluster.APP_USER + ", password: " + ProxyCluster.APP_PASSWORD + "}",
                "hostgroups:",
                "  - {id: 10, " + backend + "}",
                "  - {id: 20, " + backend + "}",
                "schemas:",
                "  - name: " + ProxyCluster.SCHEMA,
                "    default_hostgroup: 10",
                "    tables:",
                "      - {name: i23k_other, strategy: table, hostgroup: 20}",
                "      - {name: i23k_sharded, strategy: hash, column: k, buckets: 2, hostgroups: {10: \"0\", 20: \"1\"}}",
                "")));
    }
}
