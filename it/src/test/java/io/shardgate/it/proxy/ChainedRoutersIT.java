package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.protocol.auth.StoredCredential;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The router's backend client against a server that speaks caching_sha2_password: a second router.
 * MariaDB has no caching_sha2_password, so the upstream router plays the MySQL 8 role. It knows its
 * user only by a mysql_native_password hash, which forces the full authentication path the first
 * time: the downstream router, on a plain connection, asks for the RSA public key and sends the
 * password encrypted. Later logins take the fast path. Statements then cross both routers.
 */
@ExtendWith(ProxyClusterExtension.class)
class ChainedRoutersIT {

    @Test
    void backendLoginFollowsCachingSha2FullAndFastAuthentication(
            ProxyCluster cluster, @TempDir Path upstreamDir, @TempDir Path downstreamDir) throws SQLException {
        String hopPassword = "hop-secret-ü";
        String nativeHash = "*"
                + HexFormat.of()
                        .withUpperCase()
                        .formatHex(StoredCredential.fromPassword(hopPassword).nativeHash());
        RouterConfig upstreamConfig = RouterConfig.parse(String.join(
                "\n",
                "server: {port: 0, http_port: 0, auth_plugin: caching_sha2_password, tls: {enabled: false}, data_dir: \""
                        + upstreamDir + "\"}",
                "users:",
                "  - {name: hop, password_hash: \"" + nativeHash + "\"}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + cluster.backend().address() + "\", user: " + ProxyCluster.BACKEND_USER
                        + ", password: " + ProxyCluster.BACKEND_PASSWORD + "}",
                ""));
        try (Shardgate upstream = Shardgate.start(upstreamConfig)) {
            RouterConfig downstreamConfig = RouterConfig.parse(String.join(
                    "\n",
                    "server: {port: 0, http_port: 0, data_dir: \"" + downstreamDir + "\"}",
                    "users:",
                    "  - {name: app, password: app-pw}",
                    "hostgroups:",
                    "  - {id: 1, writer: \"127.0.0.1:" + upstream.mysqlPort() + "\", user: hop, password: \""
                            + hopPassword + "\"}",
                    ""));
            try (Shardgate downstream = Shardgate.start(downstreamConfig)) {
                // the version probe at startup already logged in once (full authentication)
                assertThat(downstream.serverVersion()).contains("MariaDB").endsWith("-Shardgate-Shardgate");
                for (Driver driver : Driver.values()) {
                    for (int i = 0; i < 3; i++) {
                        try (Connection c = driver.connect(
                                        downstream.mysqlPort(),
                                        ProxyCluster.SCHEMA,
                                        "app",
                                        "app-pw",
                                        Map.of("sslMode", driver == Driver.MYSQL ? "DISABLED" : "disable"));
                                Statement s = c.createStatement();
                                ResultSet rs = s.executeQuery("SELECT DATABASE(), 6 * 7, CURRENT_USER()")) {
                            assertThat(rs.next()).isTrue();
                            assertThat(rs.getString(1)).isEqualTo(ProxyCluster.SCHEMA);
                            assertThat(rs.getInt(2)).isEqualTo(42);
                            assertThat(rs.getString(3)).startsWith(ProxyCluster.BACKEND_USER + "@");
                        }
                    }
                }
            }
        }
    }

    @Test
    void wrongBackendPasswordReachesTheClientAsAccessDenied(ProxyCluster cluster, @TempDir Path dir) {
        RouterConfig config = RouterConfig.parse(String.join(
                "\n",
                "server: {port: 0, http_port: 0, data_dir: \"" + dir + "\"}",
                "users:",
                "  - {name: app, password: app-pw}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + cluster.backend().address() + "\", user: " + ProxyCluster.BACKEND_USER
                        + ", password: not-the-password}",
                ""));
        try (Shardgate router = Shardgate.start(config)) {
            for (Driver driver : Driver.values()) {
                SQLException e = org.junit.jupiter.api.Assertions.assertThrows(
                        SQLException.class,
                        () -> driver.connect(router.mysqlPort(), null, "app", "app-pw")
                                .close());
                assertThat(e.getErrorCode()).isEqualTo(1045);
                assertThat(e.getMessage()).contains(ProxyCluster.BACKEND_USER);
            }
        }
    }
}
