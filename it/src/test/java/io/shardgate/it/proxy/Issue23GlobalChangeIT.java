package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 23: a session that changes a GLOBAL through the router ({@code SET GLOBAL}) is followed by
 * new sessions that see the new value, as on MariaDB, although the router's pool holds backend
 * connections opened before the change (each copied the old GLOBAL into its session at login): the
 * pool retires them instead of handing them out. Multiplexing on and off. The sessions through the
 * router are raw protocol clients that, like the mariadb CLI and mtr's mysqltest, send nothing after
 * logging in (the JDBC drivers' own SETs at connect make the router keep one connection per session).
 */
@ExtendWith(ProxyClusterExtension.class)
class Issue23GlobalChangeIT {
    /** Harmless to the other ITs sharing the server, and set back afterwards. */
    private static final String VARIABLE = "group_concat_max_len";

    private static final int POOL = 3;

    private static ProxyCluster cluster;

    @BeforeAll
    static void shared(ProxyCluster shared) {
        cluster = shared;
    }

    @ParameterizedTest(name = "multiplexing={0}")
    @ValueSource(booleans = {true, false})
    void newSessionsSeeAGlobalChangedThroughTheRouter(boolean multiplexing) throws Exception {
        Path dir = Files.createTempDirectory("shardgate-issue23-globals-");
        long original = global();
        try (Shardgate router = Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, admin_port: 0, http_port: 0, io_threads: 1, data_dir: \"" + dir
                        + "\"}",
                "users:",
                "  - {name: " + ProxyCluster.APP_USER + ", password: " + ProxyCluster.APP_PASSWORD + "}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + cluster.backend().address() + "\", user: " + ProxyCluster.BACKEND_USER
                        + ", password: " + ProxyCluster.BACKEND_PASSWORD + ", pool: {max_connections: " + POOL
                        + ", multiplexing: " + multiplexing + "}}",
                "schemas:",
                "  - {name: " + ProxyCluster.SCHEMA + ", default_hostgroup: " + "10}",
                "")))) {
            long changed = original == 1024 ? 2048 : 1024;
            // fill the pool: every connection copies the GLOBAL as it is now; all open at once
            List<RawMySqlClient> warm = new ArrayList<>();
            try {
                for (int i = 0; i < POOL; i++) {
                    RawMySqlClient c = proxied(router);
                    warm.add(c);
                    query(c, "BEGIN");
                    assertThat(number(c, "SELECT @@SESSION." + VARIABLE)).isEqualTo(original);
                }
                for (RawMySqlClient c : warm) {
                    query(c, "COMMIT");
                }
            } finally {
                for (RawMySqlClient c : warm) {
                    c.close();
                }
            }

            try (RawMySqlClient changer = proxied(router)) {
                query(changer, "SET GLOBAL " + VARIABLE + " = " + changed);
            }

            long direct;
            try (Connection c = cluster.direct();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT @@SESSION." + VARIABLE)) {
                assertThat(rs.next()).isTrue();
                direct = rs.getLong(1);
            }
            assertThat(direct).as("a new session on MariaDB itself").isEqualTo(changed);
            for (int i = 0; i < POOL + 1; i++) {
                try (RawMySqlClient c = proxied(router)) {
                    assertThat(number(c, "SELECT @@SESSION." + VARIABLE))
                            .as("new session %d through the router (multiplexing=%s)", i, multiplexing)
                            .isEqualTo(direct);
                    // the variable's effect, not only its value: GROUP_CONCAT cuts at the session's length
                    assertThat(number(
                                    c,
                                    "SELECT LENGTH(GROUP_CONCAT(REPEAT('x', 1000) SEPARATOR ''))"
                                            + " FROM (SELECT 1 UNION SELECT 2 UNION SELECT 3) t"))
                            .isEqualTo(Math.min(changed, 3000));
                }
            }
        } finally {
            setGlobal(original);
        }
    }

    private static RawMySqlClient proxied(Shardgate router) throws IOException {
        return RawMySqlClient.loggedIn(
                router.mysqlPort(), ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, ProxyCluster.SCHEMA);
    }

    private static void query(RawMySqlClient c, String sql) throws IOException {
        c.sendCommand(RawMySqlClient.comQuery(sql));
        RawMySqlClient.RawPacket ok = c.readPacket();
        assertThat(ok.isOk()).as("%s: %s", sql, RawMySqlClient.describe(ok)).isTrue();
    }

    /** The one number {@code sql} selects. */
    private static long number(RawMySqlClient c, String sql) throws IOException {
        List<List<String>> rows = c.query(sql);
        assertThat(rows).as(sql).hasSize(1);
        return Long.parseLong(rows.get(0).get(0));
    }

    private static long global() throws SQLException {
        try (Connection c = cluster.direct()) {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT @@GLOBAL." + VARIABLE)) {
                assertThat(rs.next()).isTrue();
                return rs.getLong(1);
            }
        }
    }

    private static void setGlobal(long value) throws SQLException {
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("SET GLOBAL " + VARIABLE + " = " + value);
        }
    }
}
