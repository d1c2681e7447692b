package io.shardgate.it.proxy;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.shardgate.it.Driver;
import io.shardgate.it.proxy.RawMySqlClient.RawPacket;
import io.shardgate.protocol.type.Command;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the router does with clients that misbehave, and with a backend that goes away: garbage,
 * truncated and oversized packets, silence, too many connections, unknown and refused commands,
 * a client that vanishes in the middle of a result, a backend connection killed mid-query. Each
 * gets the MySQL error a MySQL server would send (or a closed connection), and the router goes on
 * serving other clients.
 *
 * <p>Raw sockets ({@link RawMySqlClient}) send what drivers never would. Every test is bounded by
 * {@link #BOUND}; a hang fails it, but no timing decides success otherwise.
 */
@ExtendWith(ProxyClusterExtension.class)
class BadInputIT {

    /** The class router's limit: small, so that an oversized statement is cheap to send. */
    static final int MAX_ALLOWED_PACKET = 1024 * 1024;
    /** Longest a test may take; a router that stops answering fails the test instead of stalling it. */
    static final Duration BOUND = Duration.ofSeconds(90);
    /** Rows of the result a client walks away from: many more than the socket buffers hold. */
    static final int VANISH_ROWS = 200_000;

    static final String VANISH_QUERY = "SELECT seq, REPEAT('x', 200) FROM seq_1_to_" + VANISH_ROWS;

    static final List<String> USERS =
            List.of("{name: " + ProxyCluster.APP_USER + ", password: " + ProxyCluster.APP_PASSWORD + "}");

    @TempDir
    static Path dataDirs;

    private static ProxyCluster cluster;
    private static DedicatedRouter router;

    @BeforeAll
    static void startRouter(ProxyCluster shared) {
        cluster = shared;
        router = DedicatedRouter.start(
                cluster, dataDirs.resolve("bad-input"), "max_allowed_packet: " + MAX_ALLOWED_PACKET, USERS);
    }

    @AfterAll
    static void stopRouter() {
        if (router != null) {
            router.close();
        }
    }

    private static RawMySqlClient loggedIn(int port) throws IOException {
        return RawMySqlClient.loggedIn(port, ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, ProxyCluster.SCHEMA);
    }

    /** A new client can log in to {@code port} and run a query. */
    private static void assertServes(int port) throws IOException {
        try (RawMySqlClient client = loggedIn(port)) {
            assertThat(client.query("SELECT 6 * 7"))
                    .as("a new client is served")
                    .containsExactly(List.of("42"));
        }
    }

    private static void assertErr(RawPacket packet, int code) {
        assertThat(packet.isErr()).as("ERR %d expected, got %s", code, packet).isTrue();
        assertThat(packet.err().code()).as("%s", packet.err()).isEqualTo(code);
    }

    static Stream<Arguments> garbage() {
        byte[] ff = new byte[64];
        Arrays.fill(ff, (byte) 0xFF);
        return Stream.of(
                Arguments.of("three letters", "abc".getBytes(UTF_8)),
                Arguments.of("64 bytes of 0xFF", ff),
                Arguments.of("a COM_QUERY before logging in", RawMySqlClient.comQuery("SELECT 1")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("garbage")
    void garbageInsteadOfTheHandshakeResponseIsABadHandshake(String what, byte[] payload) {
        assertTimeoutPreemptively(BOUND, () -> {
            try (RawMySqlClient client = RawMySqlClient.connect(router.port())) {
                client.readGreeting();
                client.writePacket(payload);
                assertErr(client.readPacket(), 1043);
                assertThat(client.closedByRouter()).as("closed after the ERR").isTrue();
            }
            assertServes(router.port());
        });
    }

    @Test
    void truncatedHandshakeResponseThenHangingUpLeavesTheRouterServing() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (RawMySqlClient client = RawMySqlClient.connect(router.port())) {
                client.readGreeting();
                client.writeFrame(1, new byte[10], 100); // announces 100 bytes, sends 10
            }
            assertServes(router.port());
        });
    }

    @Test
    void truncatedCommandThenHangingUpClosesTheBackendConnection() {
        assertTimeoutPreemptively(BOUND, () -> {
            long backendId;
            try (RawMySqlClient client = loggedIn(router.port())) {
                backendId = backendId(client);
                byte[] query = RawMySqlClient.comQuery("SELECT 'this statement never ends'");
                client.writeFrame(0, Arrays.copyOf(query, 12), query.length);
            }
            assertThat(BackendSessions.awaitGone(cluster, backendId))
                    .as("backend connection %d closed with its client", backendId)
                    .isTrue();
            assertServes(router.port());
        });
    }

    @Test
    void silentClientGetsABadHandshakeAfterTheHandshakeTimeout() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (DedicatedRouter impatient = DedicatedRouter.start(
                            cluster, dataDirs.resolve("impatient"), "handshake_timeout_millis: 300", USERS);
                    RawMySqlClient client = RawMySqlClient.connect(impatient.port())) {
                client.readGreeting();
                // say nothing; the router must give up on its own
                RawPacket packet = client.readPacket();
                assertErr(packet, 1043);
                assertThat(client.closedByRouter()).as("closed after the ERR").isTrue();
            }
        });
    }

    @Test
    void connectionBeyondMaxConnectionsGetsTooManyConnections() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (DedicatedRouter small =
                    DedicatedRouter.start(cluster, dataDirs.resolve("small"), "max_connections: 3", USERS)) {
                List<RawMySqlClient> admitted = new ArrayList<>();
                try {
                    for (int i = 0; i < 3; i++) {
                        RawMySqlClient client = RawMySqlClient.connect(small.port());
                        admitted.add(client);
                        client.readGreeting();
                    }
                    try (RawMySqlClient fourth = RawMySqlClient.connect(small.port())) {
                        RawPacket first = fourth.readPacket();
                        assertErr(first, 1040);
                        assertThat(first.sequenceId()).isZero();
                        assertThat(fourth.closedByRouter())
                                .as("closed after the ERR")
                                .isTrue();
                    }
                    admitted.remove(0).close();
                    assertThat(admitsAClientWithin(small.port(), BackendSessions.DEADLINE))
                            .as("a closed connection frees its place")
                            .isTrue();
                } finally {
                    for (RawMySqlClient client : admitted) {
                        client.close();
                    }
                }
            }
        });
    }

    /** Connects until the router greets instead of refusing (it counts a close asynchronously). */
    private static boolean admitsAClientWithin(int port, Duration deadline) throws IOException, InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        do {
            try (RawMySqlClient client = RawMySqlClient.connect(port)) {
                RawPacket first = client.readPacket();
                if (!first.isErr()) {
                    return true;
                }
                assertErr(first, 1040);
            }
            Thread.sleep(50);
        } while (System.nanoTime() < end);
        return false;
    }

    @Test
    void unknownCommandIsAnsweredAndTheSessionGoesOn() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (RawMySqlClient client = loggedIn(router.port())) {
                client.sendCommand(new byte[] {(byte) 0x99});
                RawPacket answer = client.readPacket();
                assertErr(answer, 1047);
                assertThat(answer.sequenceId()).isEqualTo(1);
                assertThat(client.query("SELECT 1")).containsExactly(List.of("1"));
            }
        });
    }

    @Test
    void emptyCommandPacketIsAnErrorNotAHang() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (RawMySqlClient client = loggedIn(router.port())) {
                client.sendCommand(new byte[0]);
                assertThat(client.readPacket().isErr()).isTrue();
                assertThat(client.query("SELECT 1")).containsExactly(List.of("1"));
            }
        });
    }

    @Test
    void queryLargerThanMaxAllowedPacketIsRefusedAndClosed() {
        assertTimeoutPreemptively(BOUND, () -> {
            ExecutorService writer = Executors.newSingleThreadExecutor();
            try (RawMySqlClient client = loggedIn(router.port())) {
                long backendId = backendId(client);
                byte[] huge = RawMySqlClient.comQuery("SELECT '" + "x".repeat(2 * MAX_ALLOWED_PACKET) + "'");
                // the router may close before it has read all of it: write on another thread, ignore a reset
                Future<?> sent = writer.submit(() -> {
                    try {
                        client.writeFrame(0, huge, huge.length);
                    } catch (IOException e) {
                        // expected when the router has closed already
                    }
                });
                assertErr(client.readPacket(), 1153);
                assertThat(client.closedByRouter()).as("closed after the ERR").isTrue();
                sent.get(BOUND.toSeconds(), TimeUnit.SECONDS);
                assertThat(BackendSessions.awaitGone(cluster, backendId))
                        .as("backend connection %d closed with its client", backendId)
                        .isTrue();
            } finally {
                writer.shutdownNow();
            }
            assertServes(router.port());
        });
    }

    static Stream<Arguments> refusedCommands() {
        byte[] binlogDump = new byte[11 + "mariadb-bin.000001".length()];
        binlogDump[0] = (byte) Command.COM_BINLOG_DUMP.code();
        binlogDump[1] = 4; // position 4, flags 0, server id 0, then the file name
        System.arraycopy("mariadb-bin.000001".getBytes(UTF_8), 0, binlogDump, 11, "mariadb-bin.000001".length());
        return Stream.of(
                Arguments.of(Command.COM_BINLOG_DUMP, binlogDump),
                Arguments.of(
                        Command.COM_REGISTER_SLAVE, new byte[] {(byte) Command.COM_REGISTER_SLAVE.code(), 1, 0, 0, 0}),
                Arguments.of(Command.COM_SHUTDOWN, new byte[] {(byte) Command.COM_SHUTDOWN.code(), 0}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedCommands")
    void replicationAndShutdownCommandsAreRefused(Command command, byte[] payload) {
        assertTimeoutPreemptively(BOUND, () -> {
            try (RawMySqlClient client = loggedIn(router.port())) {
                client.sendCommand(payload);
                assertErr(client.readPacket(), 1235);
                assertThat(client.query("SELECT 1"))
                        .as("the session and the backend go on")
                        .containsExactly(List.of("1"));
            }
        });
    }

    /** How a client walks away from a streamed result. */
    enum Vanish {
        /** Connector/J streaming ({@code setFetchSize(Integer.MIN_VALUE)}), then {@code abort()}. */
        CONNECTOR_J_ABORT,
        /** A raw socket closed after a few rows. */
        RAW_SOCKET_CLOSED
    }

    @ParameterizedTest
    @EnumSource(Vanish.class)
    void clientVanishingMidResultClosesItsBackendConnection(Vanish how) {
        assertTimeoutPreemptively(BOUND, () -> {
            Set<Long> before = BackendSessions.ids(cluster);
            long backendId = how == Vanish.CONNECTOR_J_ABORT ? abortStreaming() : closeRawMidResult();
            assertThat(BackendSessions.await(cluster, ids -> !ids.contains(backendId) && ids.size() <= before.size()))
                    .as(
                            "backend connection %d closed, the backend account's count back to %d (%s)",
                            backendId, before.size(), before)
                    .isTrue();
            assertServes(router.port());
        });
    }

    /** Streams the big result with Connector/J, reads a few rows, aborts; returns the backend connection id. */
    private static long abortStreaming() throws SQLException {
        Connection c = Driver.MYSQL.connect(
                router.port(),
                ProxyCluster.SCHEMA,
                ProxyCluster.APP_USER,
                ProxyCluster.APP_PASSWORD,
                Map.of("sslMode", "DISABLED", "socketTimeout", "60000"));
        try {
            long backendId;
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT @@pseudo_thread_id")) {
                rs.next();
                backendId = rs.getLong(1);
            }
            Statement s = c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
            s.setFetchSize(Integer.MIN_VALUE);
            ResultSet rs = s.executeQuery(VANISH_QUERY);
            for (int i = 0; i < 10; i++) {
                assertThat(rs.next()).isTrue();
            }
            return backendId;
        } finally {
            c.abort(Runnable::run); // closes the socket without reading the rest
        }
    }

    /** Sends the big query on a raw socket, reads a few packets, hangs up; returns the backend connection id. */
    private static long closeRawMidResult() throws IOException {
        try (RawMySqlClient client = loggedIn(router.port())) {
            long backendId = backendId(client);
            client.sendCommand(RawMySqlClient.comQuery(VANISH_QUERY));
            for (int i = 0; i < 20; i++) {
                assertThat(client.readPacket().isErr()).isFalse();
            }
            return backendId;
        }
    }

    /**
     * KILL issued on MariaDB against the router's backend connection while the client waits in
     * SELECT SLEEP(10): the client gets an error at once (the backend's "connection was killed" or
     * 2013 lost connection), not a hang, and the router goes on serving.
     */
    @ParameterizedTest
    @EnumSource(Driver.class)
    void backendConnectionKilledMidQueryFailsTheClientsQuery(Driver driver) {
        assertTimeoutPreemptively(BOUND, () -> {
            ExecutorService runner = Executors.newSingleThreadExecutor();
            try (Connection c = driver.connect(
                    router.port(),
                    ProxyCluster.SCHEMA,
                    ProxyCluster.APP_USER,
                    ProxyCluster.APP_PASSWORD,
                    Map.of("socketTimeout", "60000"))) {
                long backendId;
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT @@pseudo_thread_id")) {
                    rs.next();
                    backendId = rs.getLong(1);
                }
                Future<String> sleeping = runner.submit(() -> {
                    try (Statement s = c.createStatement();
                            ResultSet rs = s.executeQuery("SELECT SLEEP(10)")) {
                        rs.next();
                        return "SLEEP returned " + rs.getString(1);
                    }
                });
                assertThat(BackendSessions.awaitStatement(cluster, backendId, "SELECT SLEEP(10)"))
                        .as("backend connection %d runs the SLEEP", backendId)
                        .isTrue();
                // a loss within 50 ms of sending (StatementRetry.RETRY_WINDOW_NANOS) counts as a
                // pooled connection that was dead before the server read it, and a read runs again:
                // this is an operator killing a query that has been running for a while
                Thread.sleep(200);
                try (Connection direct = cluster.direct();
                        Statement s = direct.createStatement()) {
                    s.execute("KILL " + backendId);
                }
                ExecutionException failed = catchThrowableOfType(
                        ExecutionException.class, () -> sleeping.get(BOUND.toSeconds(), TimeUnit.SECONDS));
                assertThat(failed).as("the query must fail, not complete").isNotNull();
                assertThat(failed.getCause()).isInstanceOf(SQLException.class);
                SQLException e = (SQLException) failed.getCause();
                assertThat(e.getErrorCode()).as("%s", e).isIn(2013, 1927);
                assertThat(e.getSQLState()).as("%s", e).matches("(08|70).*");
            } finally {
                runner.shutdownNow();
            }
            assertServes(router.port());
        });
    }

    /** The id MariaDB gave the router's backend connection for this client's session. */
    /**
     * The id of the backend connection holding this session's state. A user variable pins the
     * session to it; without state a multiplexed session holds no backend connection between
     * statements, and the one that served it is back in the pool, clean. Read as MariaDB's
     * {@code @@pseudo_thread_id} (the thread id by default): CONNECTION_ID() answers the router's
     * session id.
     */
    private static long backendId(RawMySqlClient client) throws IOException {
        client.query("SELECT @session_state := 1");
        return Long.parseLong(client.query("SELECT @@pseudo_thread_id").get(0).get(0));
    }
}
