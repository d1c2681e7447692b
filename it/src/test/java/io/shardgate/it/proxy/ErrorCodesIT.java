package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shardgate.it.Driver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Server errors reach the client through Shardgate with the shard's code, SQL state and message,
 * and the session keeps working afterwards.
 */
@ExtendWith(ProxyClusterExtension.class)
class ErrorCodesIT {

    private static ProxyCluster cluster;

    /** The error a client sees: what applications branch on. */
    record ServerError(int code, String sqlState, String message) {
        static ServerError of(SQLException e) {
            // MariaDB Connector/J prefixes the connection id, which differs between router and shard
            String message = e.getMessage().replaceFirst("^\\(conn=\\d+\\) ", "");
            return new ServerError(e.getErrorCode(), e.getSQLState(), message);
        }
    }

    @BeforeAll
    static void createTable(ProxyCluster shared) throws SQLException {
        cluster = shared;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS err_unique");
            s.execute("CREATE TABLE err_unique (id INT PRIMARY KEY, name VARCHAR(20))");
            s.execute("INSERT INTO err_unique VALUES (1, 'taken')");
        }
    }

    static Stream<Arguments> errors() {
        return Clients.all()
                .flatMap(pair -> Stream.of(
                        Arguments.of(
                                pair.get()[0],
                                pair.get()[1],
                                "INSERT INTO err_unique VALUES (1, 'again')",
                                1062,
                                "23000"),
                        Arguments.of(pair.get()[0], pair.get()[1], "SELEC 1 FROM err_unique", 1064, "42000"),
                        Arguments.of(pair.get()[0], pair.get()[1], "SELECT * FROM no_such_table", 1146, "42S02")));
    }

    @ParameterizedTest(name = "{0} {1}: {3} for {2}")
    @MethodSource("errors")
    void keepsTheShardsErrorAndTheSession(Driver driver, Mode mode, String sql, int code, String sqlState)
            throws SQLException {
        ServerError viaRouter;
        ServerError direct;
        try (Connection c = cluster.proxied(driver, mode)) {
            viaRouter = fail(c, mode, sql);
            assertThat(Compare.query(c, mode, "SELECT name FROM err_unique WHERE id = ?", 1)
                            .cell(0, "name")
                            .text())
                    .as("the session still works after the error")
                    .isEqualTo("taken");
        }
        try (Connection c = cluster.direct(driver, mode)) {
            direct = fail(c, mode, sql);
        }
        assertThat(viaRouter.code()).isEqualTo(code);
        assertThat(viaRouter.sqlState()).isEqualTo(sqlState);
        assertThat(viaRouter).isEqualTo(direct);
    }

    @ParameterizedTest
    @MethodSource("io.shardgate.it.proxy.Clients#all")
    void anErrorInsideATransactionKeepsTheTransaction(Driver driver, Mode mode) throws SQLException {
        int id = 10 + Clients.ordinal(driver, mode);
        try (Connection c = cluster.proxied(driver, mode)) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO err_unique VALUES (?, 'tx')")) {
                ps.setInt(1, id);
                ps.executeUpdate();
            }
            assertThat(fail(c, mode, "INSERT INTO err_unique VALUES (1, 'dup')").code())
                    .isEqualTo(1062);
            c.commit();
        }
        try (Connection c = cluster.direct()) {
            assertThat(Compare.query(c, Mode.TEXT, "SELECT name FROM err_unique WHERE id = ?", id)
                            .rows())
                    .hasSize(1);
        }
    }

    private static ServerError fail(Connection c, Mode mode, String sql) {
        SQLException e = catchThrowableOfType(SQLException.class, () -> {
            if (mode == Mode.TEXT) {
                try (Statement s = c.createStatement()) {
                    s.execute(sql);
                }
            } else {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.execute();
                }
            }
        });
        assertThat((Object) e).as("%s must fail", sql).isNotNull(); // SQLException is Iterable
        return ServerError.of(e);
    }
}
