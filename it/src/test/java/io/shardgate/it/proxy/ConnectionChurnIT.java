package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Many short-lived client connections one after the other, in plain text and over TLS (which the
 * router terminates): every one of them logs in and answers, none is lost to a handshake race.
 */
@ExtendWith(ProxyClusterExtension.class)
class ConnectionChurnIT {

    static final int CONNECTIONS = 100;

    private static ProxyCluster cluster;

    @BeforeAll
    static void shareCluster(ProxyCluster shared) {
        cluster = shared;
    }

    @ParameterizedTest(name = "{0} sslMode={1}")
    @CsvSource({"MYSQL, DISABLED", "MYSQL, REQUIRED", "MARIADB, disable", "MARIADB, trust"})
    void everyShortLivedConnectionWorks(Driver driver, String sslMode) {
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            try (Connection c = driver.connect(
                            cluster.routerPort(),
                            ProxyCluster.SCHEMA,
                            ProxyCluster.APP_USER,
                            ProxyCluster.APP_PASSWORD,
                            Map.of("sslMode", sslMode, "connectTimeout", "30000", "socketTimeout", "60000"));
                    PreparedStatement ps = c.prepareStatement("SELECT ? + 1")) {
                ps.setInt(1, i);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).isEqualTo(i + 1);
                }
            } catch (SQLException e) {
                failures.add("connection " + i + ": "
                        + e.getMessage().lines().findFirst().orElse(""));
            }
        }
        assertThat(failures).as("failed connections out of %d", CONNECTIONS).isEmpty();
    }
}
