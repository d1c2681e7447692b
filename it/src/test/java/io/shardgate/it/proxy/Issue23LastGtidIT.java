package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 23: {@code @@last_gtid} is the GTID of the server session's last commit. While backend
 * connections are shared (multiplexing on), the connection a client session committed on may serve
 * another client's commit before the read, or the read may go to another connection: the router
 * refuses the read (1235) rather than answer another session's GTID. With multiplexing off on a
 * one-hostgroup router, each client keeps its server session, and the read runs.
 */
@ExtendWith(ProxyClusterExtension.class)
class Issue23LastGtidIT {
    private final ProxyCluster cluster;

    Issue23LastGtidIT(ProxyCluster shared) {
        this.cluster = shared;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Driver.class)
    void refusedWhileConnectionsAreSharedAndReadWhereTheSessionKeepsItsOwn(Driver driver) throws Exception {
        try (Shardgate shared = cluster.router(2, true);
                Connection c = connect(driver, shared.mysqlPort());
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.executeQuery("SELECT @@last_gtid"))
                    .isInstanceOf(SQLException.class)
                    .satisfies(
                            e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1235))
                    .hasMessageContaining("@@last_gtid");
            assertThatThrownBy(() -> {
                        try (PreparedStatement p = c.prepareStatement("SELECT @@session.last_gtid, ?")) {
                            p.setInt(1, 1);
                            p.executeQuery().close();
                        }
                    })
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("@@last_gtid");
            try (ResultSet rs = s.executeQuery("SELECT '@@last_gtid'")) {
                assertThat(rs.next()).as("a string is no read of it").isTrue();
            }
        }
        try (Shardgate own = cluster.router(2, false);
                Connection c = connect(driver, own.mysqlPort());
                Connection direct = cluster.direct();
                Statement s = c.createStatement();
                Statement d = direct.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@last_gtid");
                ResultSet expected = d.executeQuery("SELECT @@last_gtid")) {
            assertThat(rs.next()).isTrue();
            assertThat(expected.next()).isTrue();
            assertThat(rs.getString(1))
                    .as("a server session that committed nothing")
                    .isEqualTo(expected.getString(1));
        }
    }

    private static Connection connect(Driver driver, int port) throws SQLException {
        return driver.connect(port, ProxyCluster.SCHEMA, ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD);
    }
}
