package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 23 ({@code main.mysql}: {@code mysql -e "select @z:='1', @z=database()"} gave 0, not NULL):
 * a client session that logged in without a schema has none, also under multiplexing, after
 * another session opened without a schema selected one with USE on the pooled connection it got
 * (MySQL cannot unselect a schema, so that connection no longer serves such sessions).
 */
@ExtendWith(ProxyClusterExtension.class)
class Issue23UnselectedSchemaIT {
    private final ProxyCluster cluster;

    Issue23UnselectedSchemaIT(ProxyCluster shared) {
        this.cluster = shared;
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void aSessionWithoutASchemaHasNoneAfterAnotherSelectedOne(Driver driver) throws Exception {
        // one backend connection and one event loop: the second session is offered the first one's
        try (Shardgate router = cluster.oneConnectionRouter(true)) {
            List<String> direct =
                    script(driver, cluster.backend().port(), ProxyCluster.BACKEND_USER, ProxyCluster.BACKEND_PASSWORD);
            List<String> viaRouter =
                    script(driver, router.mysqlPort(), ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD);
            assertThat(direct).containsExactly("A: used", "B: null", "B @z: 1|null");
            assertThat(viaRouter)
                    .as("through Shardgate (%s) vs directly", driver)
                    .isEqualTo(direct);
        }
    }

    private static List<String> script(Driver driver, int port, String user, String password) throws SQLException {
        List<String> seen = new ArrayList<>();
        Map<String, String> options = Map.of("connectTimeout", "30000", "socketTimeout", "60000");
        try (Connection a = driver.connect(port, null, user, password, options);
                Statement s = a.createStatement()) {
            // its last statement: the connection it ran on goes back to the pool with the schema selected
            s.execute("USE " + ProxyCluster.SCHEMA);
            seen.add("A: used");
        }
        try (Connection b = driver.connect(port, null, user, password, options);
                Statement s = b.createStatement()) {
            seen.add("B: " + row(s, "SELECT DATABASE()"));
            seen.add("B @z: " + row(s, "SELECT @z := '1', @z = DATABASE()"));
        }
        return seen;
    }

    private static String row(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            StringBuilder out = new StringBuilder();
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                out.append(i > 1 ? "|" : "").append(rs.getString(i));
            }
            return out.toString();
        }
    }
}
