package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import ch.qos.logback.classic.Level;
import io.shardgate.it.Driver;
import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An account with {@code require_tls: true} (MySQL's {@code REQUIRE SSL}): over TLS it logs in,
 * without TLS it gets ERROR 1045 like a wrong password even with the right one, and the router's
 * log says why. Checked with both JDBC drivers, both announced auth plugins, and the mariadb CLI.
 */
@ExtendWith(ProxyClusterExtension.class)
class TlsRequiredUserIT {
    static final String TLS_ONLY = "tls_only";
    static final String TLS_ONLY_PASSWORD = "tls-only-secret";

    @TempDir
    static Path dataDirs;

    private static DedicatedRouter nativeRouter;
    private static DedicatedRouter sha2Router;

    @BeforeAll
    static void startRouters(ProxyCluster cluster) {
        List<String> users = List.of(
                "{name: " + ProxyCluster.APP_USER + ", password: " + ProxyCluster.APP_PASSWORD + "}",
                "{name: " + TLS_ONLY + ", password: " + TLS_ONLY_PASSWORD + ", require_tls: true}");
        nativeRouter =
                DedicatedRouter.start(cluster, dataDirs.resolve("native"), "auth_plugin: mysql_native_password", users);
        sha2Router =
                DedicatedRouter.start(cluster, dataDirs.resolve("sha2"), "auth_plugin: caching_sha2_password", users);
    }

    @AfterAll
    static void stopRouters() {
        DedicatedRouter.closeAll(nativeRouter, sha2Router);
    }

    static Stream<Arguments> driversAndPlugins() {
        return Stream.of(Driver.values())
                .flatMap(driver -> Stream.of("mysql_native_password", "caching_sha2_password")
                        .map(plugin -> Arguments.of(driver, plugin)));
    }

    private static DedicatedRouter router(String plugin) {
        return plugin.equals("mysql_native_password") ? nativeRouter : sha2Router;
    }

    private static Map<String, String> options(Driver driver, boolean tls) {
        Map<String, String> options = new HashMap<>();
        if (driver == Driver.MYSQL) {
            options.put("sslMode", tls ? "REQUIRED" : "DISABLED");
            options.put("allowPublicKeyRetrieval", "true");
        } else {
            options.put("sslMode", tls ? "trust" : "disable");
        }
        return options;
    }

    @ParameterizedTest(name = "{0}, {1} announced")
    @MethodSource("driversAndPlugins")
    void logsInOverTls(Driver driver, String plugin) throws SQLException {
        try (Connection c = driver.connect(
                        router(plugin).port(),
                        ProxyCluster.SCHEMA,
                        TLS_ONLY,
                        TLS_ONLY_PASSWORD,
                        options(driver, true));
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT 6 * 7")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(42);
        }
    }

    @ParameterizedTest(name = "{0}, {1} announced")
    @MethodSource("driversAndPlugins")
    void plaintextLoginIsAccessDeniedAndLogged(Driver driver, String plugin) throws SQLException {
        try (CapturedLog log = CapturedLog.start(Level.INFO)) {
            SQLException e = catchThrowableOfType(
                    SQLException.class,
                    () -> driver.connect(
                                    router(plugin).port(),
                                    ProxyCluster.SCHEMA,
                                    TLS_ONLY,
                                    TLS_ONLY_PASSWORD,
                                    options(driver, false))
                            .close());
            assertThat((Object) e).as("a login without TLS must fail").isNotNull();
            assertThat(e.getErrorCode()).as("%s", e).isEqualTo(1045);
            assertThat(e.getSQLState()).as("%s", e).isEqualTo("28000");
            assertThat(log.lines())
                    .anySatisfy(line -> assertThat(line)
                            .contains("WARN")
                            .contains("'" + TLS_ONLY + "'")
                            .contains("requires TLS (require_tls: true)"))
                    .noneSatisfy(line -> assertThat(line).contains(TLS_ONLY_PASSWORD));
        }
        // other accounts still log in without TLS
        try (Connection c = driver.connect(
                router(plugin).port(),
                ProxyCluster.SCHEMA,
                ProxyCluster.APP_USER,
                ProxyCluster.APP_PASSWORD,
                options(driver, false))) {
            assertThat(c.isValid(10)).isTrue();
        }
    }

    @Test
    void mariadbCliLogsInWithSslAndIsRefusedWithSkipSsl() throws Exception {
        Path cli = ExternalTool.MARIADB_CLI.require();
        String sql = "SELECT 6 * 7 AS answer";

        ToolRun withSsl = mariadb(cli, "--ssl", sql);
        assertThat(withSsl.exitCode()).as("%s", withSsl).isZero();
        assertThat(withSsl.stdout()).startsWith("answer\n42\n");

        ToolRun withoutSsl = mariadb(cli, "--skip-ssl", sql);
        assertThat(withoutSsl.exitCode()).as("%s", withoutSsl).isEqualTo(1);
        assertThat(withoutSsl.stderr())
                .contains("ERROR 1045 (28000)")
                .contains("Access denied for user '" + TLS_ONLY + "'");
    }

    private static ToolRun mariadb(Path cli, String sslOption, String sql) throws Exception {
        return ToolRun.run(
                Duration.ofMinutes(1),
                List.of(
                        cli.toString(),
                        "--no-defaults",
                        "--protocol=TCP",
                        "--host=127.0.0.1",
                        "--port=" + nativeRouter.port(),
                        "--user=" + TLS_ONLY,
                        "--password=" + TLS_ONLY_PASSWORD,
                        "--database=" + ProxyCluster.SCHEMA,
                        sslOption,
                        "--batch",
                        "--execute=" + sql));
    }
}
