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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 23 ({@code main.metadata}: {@code SELECT LAST_INSERT_ID()} of a new session gave another
 * session's id): LAST_INSERT_ID() belongs to the server session, and a client session that gets a
 * pooled connection an earlier client left after an INSERT (a LAST_INSERT_ID(expr), a CALL that
 * inserts) must still read 0, as on a new connection to MariaDB — with multiplexing on and off.
 */
@ExtendWith(ProxyClusterExtension.class)
class Issue23LastInsertIdIT {
    private final ProxyCluster cluster;

    Issue23LastInsertIdIT(ProxyCluster shared) {
        this.cluster = shared;
    }

    @BeforeAll
    static void tables(ProxyCluster shared) throws SQLException {
        try (Connection c = shared.direct();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + ProxyCluster.SCHEMA
                    + ".i23_ids (id INT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(10))");
            s.execute("CREATE OR REPLACE PROCEDURE " + ProxyCluster.SCHEMA
                    + ".i23_add() INSERT INTO i23_ids (note) VALUES ('call')");
        }
    }

    @ParameterizedTest(name = "multiplexing {0}, after {1}")
    @CsvSource({
        "true, INSERT INTO i23_ids (note) VALUES ('a')",
        "false, INSERT INTO i23_ids (note) VALUES ('a')",
        "true, REPLACE INTO i23_ids (note) VALUES ('r')",
        "true, SELECT LAST_INSERT_ID(7)",
        "false, SELECT LAST_INSERT_ID(7)",
        "true, UPDATE i23_ids SET note = 'u' WHERE id = LAST_INSERT_ID(id) LIMIT 1",
        "true, CALL i23_add()",
        "false, CALL i23_add()",
    })
    void aNewSessionReadsNoLastInsertIdOfAnEarlierOne(boolean multiplexing, String earlier) throws Exception {
        Path dir = Files.createTempDirectory("shardgate-issue23-insert-id-");
        // one backend connection and one event loop: the second session is offered the first one's
        try (Shardgate router = Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, admin_port: 0, http_port: 0, io_threads: 1, data_dir: \"" + dir
                        + "\"}",
                "users:",
                "  - {name: " + ProxyCluster.APP_USER + ", password: " + ProxyCluster.APP_PASSWORD + "}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + cluster.backend().address() + "\", user: " + ProxyCluster.BACKEND_USER
                        + ", password: " + ProxyCluster.BACKEND_PASSWORD + ", pool: {max_connections: 1, multiplexing: "
                        + multiplexing + "}}",
                "schemas:",
                "  - {name: " + ProxyCluster.SCHEMA + ", default_hostgroup: 10}",
                "")))) {
            List<String> direct =
                    script(cluster.backend().port(), ProxyCluster.BACKEND_USER, ProxyCluster.BACKEND_PASSWORD, earlier);
            List<String> viaRouter =
                    script(router.mysqlPort(), ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, earlier);
            assertThat(direct.get(0)).as("directly, A holds an id").isEqualTo("A: nonzero");
            assertThat(viaRouter)
                    .as("through Shardgate (multiplexing %s) vs directly, byte for byte", multiplexing)
                    .isEqualTo(direct);
        }
    }

    /**
     * Session A runs {@code earlier} and leaves; then a new session B asks for LAST_INSERT_ID() and
     * {@code @@identity}: the whole responses, in hex. The raw client, like mtr's C client, sends
     * no statement of its own at login (a driver's SETs would make the router reset the connection).
     */
    private static List<String> script(int port, String user, String password, String earlier) throws Exception {
        List<String> seen = new ArrayList<>();
        try (RawMySqlClient a = RawMySqlClient.loggedIn(port, user, password, ProxyCluster.SCHEMA)) {
            a.sendCommand(RawMySqlClient.comQuery(earlier));
            RawResults.readResponse(a, false);
            // A's own server session holds an id now (asked on A's connection: the pool has one)
            List<String> own = response(a, "SELECT LAST_INSERT_ID()");
            seen.add("A: " + (own.get(3).endsWith(":0130") ? "0" : "nonzero")); // the row: length 1, "0"
        }
        try (RawMySqlClient b = RawMySqlClient.loggedIn(port, user, password, ProxyCluster.SCHEMA)) {
            seen.add("B: " + response(b, "SELECT LAST_INSERT_ID()"));
            seen.add("B @@identity: " + response(b, "SELECT @@identity"));
        }
        return seen;
    }

    private static List<String> response(RawMySqlClient c, String sql) throws Exception {
        c.sendCommand(RawMySqlClient.comQuery(sql));
        List<String> packets = RawResults.readResponse(c, false);
        assertThat(packets).as("%s", sql).hasSize(5); // column count, definition, EOF, row, EOF
        return packets;
    }
}
