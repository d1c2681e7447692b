package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.mysql.cj.jdbc.JdbcConnection;
import io.netty.buffer.Unpooled;
import io.shardgate.it.Driver;
import io.shardgate.it.proxy.RawMySqlClient.RawPacket;
import io.shardgate.protocol.auth.CachingSha2Password;
import io.shardgate.protocol.auth.MySqlNativePassword;
import io.shardgate.protocol.packet.AuthSwitchRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Logging in to Shardgate with real drivers and a raw client: both auth plugins announced,
 * users configured with a password or only with a mysql_native_password hash (which
 * caching_sha2_password can verify only through full authentication, by RSA or over TLS), wrong
 * passwords and unknown users, TLS, and COM_CHANGE_USER.
 *
 * <p>Two routers of this class's own run in front of the shared MariaDB, one announcing each
 * plugin; their users are the same. Users whose password is only a native hash are taught a
 * caching_sha2_password hash by their first full authentication, so each scenario that depends
 * on that first time has a user of its own.
 */
@ExtendWith(ProxyClusterExtension.class)
class AuthenticationIT {

    static final String NATIVE = MySqlNativePassword.NAME;
    static final String SHA2 = CachingSha2Password.NAME;

    static final String APP = ProxyCluster.APP_USER;
    static final String APP_PASSWORD = ProxyCluster.APP_PASSWORD;
    static final String OTHER = "other";
    static final String OTHER_PASSWORD = "other-secret";
    /** The password behind every user configured with {@code password_hash} only. */
    static final String LEGACY_PASSWORD = "legacy-secret";

    /** Users with a native hash only, never logged in successfully before the test that uses them. */
    static final String LEGACY = "legacy";

    static final String LEGACY_RAW_TLS = "legacy_raw_tls";
    static final String LEGACY_RAW_PLAIN = "legacy_raw_plain";
    static final String LEGACY_CHANGE = "legacy_change";

    /** How the driver is told to use TLS. */
    enum ClientTls {
        DISABLED,
        REQUIRED;

        /** Driver options: no TLS but RSA key retrieval for caching_sha2_password, or TLS without verification. */
        Map<String, String> options(Driver driver) {
            Map<String, String> options = new HashMap<>();
            options.put("connectTimeout", "30000");
            options.put("socketTimeout", "60000");
            if (driver == Driver.MYSQL) {
                options.put("sslMode", this == DISABLED ? "DISABLED" : "REQUIRED");
            } else {
                options.put("sslMode", this == DISABLED ? "disable" : "trust");
            }
            if (this == DISABLED) {
                options.put("allowPublicKeyRetrieval", "true");
            }
            return options;
        }
    }

    /** Who fails to log in. */
    enum BadLogin {
        /** A user configured with {@code password}, wrong password. */
        WRONG_PASSWORD,
        /** A user configured with {@code password_hash} only, wrong password (full authentication fails). */
        WRONG_PASSWORD_HASHED_USER,
        /** A user the router does not know. */
        UNKNOWN_USER
    }

    @TempDir
    static Path dataDirs;

    private static ProxyCluster cluster;
    private static DedicatedRouter nativeRouter;
    private static DedicatedRouter sha2Router;

    @BeforeAll
    static void startRouters(ProxyCluster shared) throws SQLException {
        cluster = shared;
        String legacyHash;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT PASSWORD('" + LEGACY_PASSWORD + "')")) {
            rs.next();
            legacyHash = rs.getString(1);
        }
        List<String> users = new ArrayList<>();
        users.add("{name: " + APP + ", password: " + APP_PASSWORD + "}");
        users.add("{name: " + OTHER + ", password: " + OTHER_PASSWORD + "}");
        for (String name : legacyUsers()) {
            users.add("{name: " + name + ", password_hash: \"" + legacyHash + "\"}");
        }
        nativeRouter = DedicatedRouter.start(cluster, dataDirs.resolve("native"), "auth_plugin: " + NATIVE, users);
        sha2Router = DedicatedRouter.start(cluster, dataDirs.resolve("sha2"), "auth_plugin: " + SHA2, users);
    }

    private static List<String> legacyUsers() {
        List<String> names = new ArrayList<>(List.of(LEGACY, LEGACY_RAW_TLS, LEGACY_RAW_PLAIN, LEGACY_CHANGE));
        for (Driver driver : Driver.values()) {
            for (ClientTls tls : ClientTls.values()) {
                names.add(learningUser(driver, tls));
            }
        }
        return names;
    }

    /** The user of one run of {@link #nativeHashUserLearnsCachingSha2ThroughFullAuthentication}. */
    private static String learningUser(Driver driver, ClientTls tls) {
        return ("legacy_" + driver + "_" + tls).toLowerCase(Locale.ROOT);
    }

    @AfterAll
    static void stopRouters() {
        DedicatedRouter.closeAll(nativeRouter, sha2Router);
    }

    private static DedicatedRouter router(String plugin) {
        return plugin.equals(NATIVE) ? nativeRouter : sha2Router;
    }

    private static Connection connect(
            DedicatedRouter router, Driver driver, ClientTls tls, String user, String password) throws SQLException {
        return driver.connect(router.port(), ProxyCluster.SCHEMA, user, password, tls.options(driver));
    }

    static Stream<Arguments> everyMode() {
        return Stream.of(Driver.values())
                .flatMap(driver -> Stream.of(NATIVE, SHA2)
                        .flatMap(
                                plugin -> Stream.of(ClientTls.values()).map(tls -> Arguments.of(driver, plugin, tls))));
    }

    static Stream<Arguments> driversAndTls() {
        return Stream.of(Driver.values())
                .flatMap(driver -> Stream.of(ClientTls.values()).map(tls -> Arguments.of(driver, tls)));
    }

    @ParameterizedTest(name = "{0}, {1} announced, TLS {2}")
    @MethodSource("everyMode")
    void logsInWithAPasswordUser(Driver driver, String plugin, ClientTls tls) throws SQLException {
        try (Connection c = connect(router(plugin), driver, tls, APP, APP_PASSWORD)) {
            assertThat(tlsInUse(driver, c)).as("TLS in use").isEqualTo(tls == ClientTls.REQUIRED);
            assertThat(scalar(c, "SELECT DATABASE()")).isEqualTo(ProxyCluster.SCHEMA);
            assertThat(scalar(c, "SELECT 6 * 7")).isEqualTo("42");
        }
    }

    @ParameterizedTest(name = "{0}, TLS {1}")
    @MethodSource("driversAndTls")
    void nativeHashUserLogsInWhenNativeIsAnnounced(Driver driver, ClientTls tls) throws SQLException {
        for (int login = 1; login <= 2; login++) {
            try (Connection c = connect(nativeRouter, driver, tls, LEGACY, LEGACY_PASSWORD)) {
                assertThat(tlsInUse(driver, c)).as("TLS in use").isEqualTo(tls == ClientTls.REQUIRED);
                assertThat(scalar(c, "SELECT 6 * 7")).as("login %d", login).isEqualTo("42");
            }
        }
    }

    /**
     * With caching_sha2_password announced, a user known only by its native hash needs full
     * authentication the first time (RSA without TLS, plaintext with TLS); the router then knows
     * its sha2 hash and answers a fast-auth scramble with "fast auth success" (0x03).
     *
     * <p>MariaDB Connector/J answers every greeting with mysql_native_password, which the native
     * hash verifies directly: its logins succeed without full authentication, so they teach the
     * router nothing and the fast path stays closed.
     */
    @ParameterizedTest(name = "{0}, TLS {1}")
    @MethodSource("driversAndTls")
    void nativeHashUserLearnsCachingSha2ThroughFullAuthentication(Driver driver, ClientTls tls)
            throws SQLException, IOException {
        String user = learningUser(driver, tls);
        assertThat(sha2FastAuthAnswer(user, LEGACY_PASSWORD))
                .as("before any login the sha2 scramble cannot be checked")
                .isEqualTo(CachingSha2Password.PERFORM_FULL_AUTHENTICATION);

        for (int login = 1; login <= 2; login++) {
            try (Connection c = connect(sha2Router, driver, tls, user, LEGACY_PASSWORD)) {
                assertThat(tlsInUse(driver, c)).as("TLS in use").isEqualTo(tls == ClientTls.REQUIRED);
                assertThat(scalar(c, "SELECT 6 * 7")).as("login %d", login).isEqualTo("42");
            }
        }

        byte expected = driver == Driver.MYSQL
                ? CachingSha2Password.FAST_AUTH_SUCCESS
                : CachingSha2Password.PERFORM_FULL_AUTHENTICATION;
        assertThat(sha2FastAuthAnswer(user, LEGACY_PASSWORD))
                .as("after %s logged in", driver)
                .isEqualTo(expected);
    }

    @Test
    void fullAuthenticationOverTlsTakesThePlaintextPassword() throws IOException {
        try (RawMySqlClient client = RawMySqlClient.connect(sha2Router.port())) {
            byte[] seed = client.readGreeting().authPluginData();
            SSLSocket tls = client.upgradeToTls();
            assertThat(tls.getSession().getCipherSuite()).isNotEqualTo("SSL_NULL_WITH_NULL_NULL");

            RawPacket more = client.sendHandshakeResponse(
                    LEGACY_RAW_TLS, SHA2, CachingSha2Password.scramble(LEGACY_PASSWORD, seed), ProxyCluster.SCHEMA);
            assertThat(more.payload()).containsExactly(0x01, CachingSha2Password.PERFORM_FULL_AUTHENTICATION);
            RawPacket result = client.sendAuthData(CachingSha2Password.plaintextPassword(LEGACY_PASSWORD));
            assertThat(result.isOk()).as("%s", RawMySqlClient.describe(result)).isTrue();
            assertThat(client.query("SELECT 6 * 7")).containsExactly(List.of("42"));
        }
        assertThat(sha2FastAuthAnswer(LEGACY_RAW_TLS, LEGACY_PASSWORD))
                .isEqualTo(CachingSha2Password.FAST_AUTH_SUCCESS);
    }

    @Test
    void plaintextPasswordWithoutTlsIsRefused() throws IOException {
        try (RawMySqlClient client = RawMySqlClient.connect(sha2Router.port())) {
            byte[] seed = client.readGreeting().authPluginData();
            RawPacket more = client.sendHandshakeResponse(
                    LEGACY_RAW_PLAIN, SHA2, CachingSha2Password.scramble(LEGACY_PASSWORD, seed), ProxyCluster.SCHEMA);
            assertThat(more.payload()).containsExactly(0x01, CachingSha2Password.PERFORM_FULL_AUTHENTICATION);

            // the right password, but in the clear on an unencrypted connection
            RawPacket result = client.sendAuthData(CachingSha2Password.plaintextPassword(LEGACY_PASSWORD));
            assertThat(result.err().code()).isEqualTo(1045);
            assertThat(result.err().sqlState()).isEqualTo("28000");
            assertThat(client.closedByRouter()).isTrue();
        }
        assertThat(sha2FastAuthAnswer(LEGACY_RAW_PLAIN, LEGACY_PASSWORD))
                .as("nothing learned from a refused login")
                .isEqualTo(CachingSha2Password.PERFORM_FULL_AUTHENTICATION);
    }

    static Stream<Arguments> badLogins() {
        return everyMode()
                .flatMap(mode -> Stream.of(BadLogin.values()).map(bad -> {
                    Object[] args = mode.get();
                    return Arguments.of(args[0], args[1], args[2], bad);
                }));
    }

    @ParameterizedTest(name = "{0}, {1} announced, TLS {2}: {3}")
    @MethodSource("badLogins")
    void badLoginIsAccessDenied(Driver driver, String plugin, ClientTls tls, BadLogin bad) {
        String user = switch (bad) {
            case WRONG_PASSWORD -> APP;
            case WRONG_PASSWORD_HASHED_USER -> LEGACY;
            case UNKNOWN_USER -> "nobody";
        };
        String password = bad == BadLogin.UNKNOWN_USER ? APP_PASSWORD : "not-the-password";
        SQLException e = catchThrowableOfType(SQLException.class, () -> {
            try (Connection c = connect(router(plugin), driver, tls, user, password)) {
                scalar(c, "SELECT 1");
            }
        });
        assertThat((Object) e).as("login must fail").isNotNull(); // SQLException is Iterable
        assertThat(e.getErrorCode()).as("%s", e).isEqualTo(1045);
        assertThat(e.getSQLState()).as("%s", e).isEqualTo("28000");
    }

    /**
     * COM_CHANGE_USER through Connector/J: the router authenticates the new user (a
     * native-hash-only one needs full authentication by RSA when caching_sha2_password is
     * announced) and resets the backend session; user variables are gone, the schema is kept.
     */
    @ParameterizedTest(name = "{0} announced, to {1}")
    @MethodSource("changeUserTargets")
    void changeUserResetsTheSessionAndKeepsTheSchema(String plugin, String newUser, String newPassword)
            throws SQLException {
        try (Connection c = connect(router(plugin), Driver.MYSQL, ClientTls.DISABLED, APP, APP_PASSWORD)) {
            try (Statement s = c.createStatement()) {
                s.execute("SET @before_change = 42");
            }
            assertThat(scalar(c, "SELECT @before_change")).isEqualTo("42");

            c.unwrap(JdbcConnection.class).changeUser(newUser, newPassword);

            assertThat(scalar(c, "SELECT @before_change"))
                    .as("user variable after the change")
                    .isNull();
            assertThat(scalar(c, "SELECT DATABASE()")).isEqualTo(ProxyCluster.SCHEMA);
            assertThat(scalar(c, "SELECT 6 * 7")).isEqualTo("42");
        }
    }

    static Stream<Arguments> changeUserTargets() {
        return Stream.of(NATIVE, SHA2)
                .flatMap(plugin -> Stream.of(
                        Arguments.of(plugin, OTHER, OTHER_PASSWORD),
                        Arguments.of(plugin, LEGACY_CHANGE, LEGACY_PASSWORD)));
    }

    @ParameterizedTest(name = "{0} announced, {1}")
    @MethodSource("badChangeUsers")
    void changeUserWithAWrongPasswordIsDenied(String plugin, String newUser, String newPassword)
            throws SQLException, InterruptedException {
        long backendId;
        try (Connection c = connect(router(plugin), Driver.MYSQL, ClientTls.DISABLED, APP, APP_PASSWORD)) {
            // a user variable pins the session to one backend connection that holds its state; an
            // unpinned session holds no backend connection between statements (multiplexing)
            try (var s = c.createStatement()) {
                s.execute("SET @session_state = 'old user'");
            }
            // the backend thread's id (MariaDB's default pseudo_thread_id): CONNECTION_ID() answers the router's
            backendId = Long.parseLong(scalar(c, "SELECT @@pseudo_thread_id"));
            SQLException e = catchThrowableOfType(
                    SQLException.class, () -> c.unwrap(JdbcConnection.class).changeUser(newUser, newPassword));
            assertThat((Object) e).as("change user must fail").isNotNull();
            assertThat(e.getErrorCode()).as("%s", e).isEqualTo(1045);
            assertThat(e.getSQLState()).as("%s", e).isEqualTo("28000");
        }
        assertThat(BackendSessions.awaitGone(cluster, backendId))
                .as("the denied session's backend connection %d is closed", backendId)
                .isTrue();
        try (Connection c = connect(router(plugin), Driver.MYSQL, ClientTls.DISABLED, APP, APP_PASSWORD)) {
            assertThat(scalar(c, "SELECT 6 * 7")).as("the router still serves").isEqualTo("42");
        }
    }

    static Stream<Arguments> badChangeUsers() {
        return Stream.of(NATIVE, SHA2)
                .flatMap(plugin -> Stream.of(
                        Arguments.of(plugin, OTHER, "not-the-password"),
                        Arguments.of(plugin, LEGACY, "not-the-password"),
                        Arguments.of(plugin, "nobody", OTHER_PASSWORD)));
    }

    /** The backend's own error (unknown database) ends the session: client and backend connection close. */
    @Test
    void changeUserToAnUnknownSchemaGetsTheBackendsErrorAndCloses()
            throws IOException, SQLException, InterruptedException {
        long backendId;
        try (RawMySqlClient client =
                RawMySqlClient.loggedIn(nativeRouter.port(), APP, APP_PASSWORD, ProxyCluster.SCHEMA)) {
            // the backend thread's id (MariaDB's default pseudo_thread_id): CONNECTION_ID() answers the router's
            backendId = Long.parseLong(
                    client.query("SELECT @@pseudo_thread_id").get(0).get(0));
            RawPacket answer = client.changeUser(OTHER, OTHER_PASSWORD, "no_such_schema");
            assertThat(answer.err().code()).isEqualTo(1049);
            assertThat(client.closedByRouter()).isTrue();
        }
        assertThat(BackendSessions.awaitGone(cluster, backendId))
                .as("the session's backend connection %d is closed", backendId)
                .isTrue();
    }

    /** A client offering mysql_clear_password is switched to a hashing plugin, never accepted in the clear. */
    @ParameterizedTest(name = "{0} announced")
    @ValueSource(strings = {NATIVE, SHA2})
    void clearTextPasswordIsSwitchedToAHashingPlugin(String plugin) throws IOException {
        try (RawMySqlClient client = RawMySqlClient.connect(router(plugin).port())) {
            client.readGreeting();
            RawPacket reply = client.sendHandshakeResponse(
                    APP,
                    "mysql_clear_password",
                    CachingSha2Password.plaintextPassword(APP_PASSWORD),
                    ProxyCluster.SCHEMA);
            assertThat(reply.header()).as("AuthSwitchRequest, not %s", reply).isEqualTo(0xFE);
            AuthSwitchRequest request = AuthSwitchRequest.read(Unpooled.wrappedBuffer(reply.payload()));
            assertThat(request.pluginName()).isIn(NATIVE, SHA2);
            byte[] seed = request.scramble();
            RawPacket result = client.sendAuthData(
                    request.pluginName().equals(NATIVE)
                            ? MySqlNativePassword.scramble(APP_PASSWORD, seed)
                            : CachingSha2Password.scramble(APP_PASSWORD, seed));
            if (result.header() == 0x01) {
                assertThat(result.payload()).containsExactly(0x01, CachingSha2Password.FAST_AUTH_SUCCESS);
                result = client.readPacket();
            }
            assertThat(result.isOk()).as("%s", RawMySqlClient.describe(result)).isTrue();
            assertThat(client.query("SELECT 6 * 7")).containsExactly(List.of("42"));
        }
    }

    /**
     * What the sha2 router answers a caching_sha2_password fast-auth scramble with: the data byte
     * of its AuthMoreData, 0x03 (fast auth success, followed by OK) or 0x04 (full authentication
     * needed). The raw client then hangs up.
     */
    private static byte sha2FastAuthAnswer(String user, String password) throws IOException {
        try (RawMySqlClient client = RawMySqlClient.connect(sha2Router.port())) {
            byte[] seed = client.readGreeting().authPluginData();
            RawPacket more = client.sendHandshakeResponse(
                    user, SHA2, CachingSha2Password.scramble(password, seed), ProxyCluster.SCHEMA);
            assertThat(more.payload())
                    .as("AuthMoreData, not %s", more)
                    .hasSize(2)
                    .startsWith(0x01);
            if (more.payload()[1] == CachingSha2Password.FAST_AUTH_SUCCESS) {
                RawPacket ok = client.readPacket();
                assertThat(ok.isOk())
                        .as("OK after fast auth success, not %s", ok)
                        .isTrue();
            }
            return more.payload()[1];
        }
    }

    /** Whether the driver's connection runs over TLS, as the driver itself reports. */
    private static boolean tlsInUse(Driver driver, Connection c) throws SQLException {
        return driver == Driver.MYSQL
                ? c.unwrap(JdbcConnection.class).getSession().isSSLEstablished()
                : c.unwrap(org.mariadb.jdbc.Connection.class)
                        .getContext()
                        .hasClientCapability(org.mariadb.jdbc.util.constants.Capabilities.SSL);
    }

    private static String scalar(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as("%s returns a row", sql).isTrue();
            return rs.getString(1);
        }
    }
}
