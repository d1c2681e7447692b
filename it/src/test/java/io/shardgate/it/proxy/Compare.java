package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Runs one query through Shardgate and directly on the shard, with the same driver and mode, and
 * asserts the client sees the same columns and rows (Vitess' {@code MySQLCompare}, JDBC flavour).
 */
public final class Compare {

    private final ProxyCluster cluster;
    private final Driver driver;
    private final Mode mode;

    public Compare(ProxyCluster cluster, Driver driver, Mode mode) {
        this.cluster = cluster;
        this.driver = driver;
        this.mode = mode;
    }

    /** The result through the router, after asserting it equals the shard's. */
    public ResultSnapshot query(String sql, Object... parameters) throws SQLException {
        ResultSnapshot viaRouter;
        ResultSnapshot direct;
        try (Connection c = cluster.proxied(driver, mode)) {
            viaRouter = query(c, mode, sql, parameters);
        }
        try (Connection c = cluster.direct(driver, mode)) {
            direct = query(c, mode, sql, parameters);
        }
        assertThat(viaRouter.columns())
                .as("column definitions through Shardgate vs direct (%s, %s): %s", driver, mode, sql)
                .isEqualTo(direct.columns());
        assertThat(viaRouter.rows())
                .as("rows through Shardgate vs direct (%s, %s): %s", driver, mode, sql)
                .isEqualTo(direct.rows());
        return viaRouter;
    }

    /**
     * Runs a query on one connection: a plain {@code Statement} for text mode without parameters,
     * otherwise a {@code PreparedStatement} (prepared on the server in {@link Mode#SERVER_PREPARED}).
     */
    public static ResultSnapshot query(Connection c, Mode mode, String sql, Object... parameters) throws SQLException {
        if (mode == Mode.TEXT && parameters.length == 0) {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(sql)) {
                return ResultSnapshot.of(rs);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return ResultSnapshot.of(rs);
            }
        }
    }
}
