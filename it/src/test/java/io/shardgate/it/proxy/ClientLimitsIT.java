package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.shardgate.it.proxy.RawMySqlClient.RawPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.frontend.SessionBuffers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limits that keep one client from exhausting the router: failed logins per address
 * ({@code server.max_login_failures}, ERROR 1129), connections per user ({@code
 * users[].max_connections}, ERROR 1226), SQL text beyond {@code server.max_statement_bytes}
 * (ERROR 1153, session kept) and a client that never finishes its handshake (ERROR 1043, slot
 * freed), deeply nested SQL, and clients that do not read what they asked for (backpressure,
 * bounded per-session buffers). Raw sockets ({@link RawMySqlClient}) so that thousands of logins stay fast.
 */
@ExtendWith(ProxyClusterExtension.class)
class ClientLimitsIT {
    static final Duration BOUND = Duration.ofSeconds(120);
    /** A second loopback address: the router sees it as another client host. */
    static final String OTHER_HOST = "127.0.0.2";

    static final String APP = "{name: " + ProxyCluster.APP_USER + ", password: " + ProxyCluster.APP_PASSWORD;

    @TempDir
    static Path dataDirs;

    private static void assertErr(RawPacket packet, int code) {
        assertThat(packet.isErr()).as("ERR %d expected, got %s", code, packet).isTrue();
        assertThat(packet.err().code()).as("%s", packet.err()).isEqualTo(code);
    }

    /** Logs in from {@code host}; returns the router's final answer (OK or ERR), or its first packet when it is an ERR. */
    private static RawPacket login(String host, int port, String password) throws IOException {
        try (RawMySqlClient client = RawMySqlClient.connectFrom(host, port)) {
            RawPacket first = client.readPacket();
            if (first.isErr()) {
                return first;
            }
            client.readGreetingFrom(first);
            return client.login(ProxyCluster.APP_USER, password, ProxyCluster.SCHEMA);
        }
    }

    @Test
    void thousandsOfFailedLoginsBlockTheirAddressOnly(ProxyCluster cluster) {
        assertTimeoutPreemptively(BOUND, () -> {
            try (DedicatedRouter router = DedicatedRouter.start(
                    cluster,
                    dataDirs.resolve("blocking"),
                    "max_login_failures: 5, login_failure_window_millis: 600000",
                    List.of(APP + "}"))) {
                List<Integer> codes = new ArrayList<>();
                for (int i = 0; i < 2000; i++) {
                    RawPacket answer = login(OTHER_HOST, router.port(), "wrong");
                    codes.add(answer.err().code());
                    if (i >= 5) {
                        assertThat(answer.sequenceId())
                                .as("a blocked host gets the ERR instead of the greeting")
                                .isZero();
                        assertThat(answer.err().message()).contains("Host '" + OTHER_HOST + "' is blocked");
                    }
                }
                assertThat(codes.subList(0, 5))
                        .as("failed logins before the block")
                        .containsOnly(1045);
                assertThat(codes.subList(5, codes.size()))
                        .as("attempts after the fifth failure")
                        .containsOnly(1129);
                assertErr(login(OTHER_HOST, router.port(), ProxyCluster.APP_PASSWORD), 1129);
                assertThat(login("127.0.0.1", router.port(), ProxyCluster.APP_PASSWORD)
                                .isOk())
                        .as("another address logs in while %s is blocked", OTHER_HOST)
                        .isTrue();
            }
        });
    }

    @Test
    void blockedAddressRecoversAfterTheWindow(ProxyCluster cluster) {
        assertTimeoutPreemptively(BOUND, () -> {
            try (DedicatedRouter router = DedicatedRouter.start(
                    cluster,
                    dataDirs.resolve("recovering"),
                    "max_login_failures: 3, login_failure_window_millis: 1000",
                    List.of(APP + "}"))) {
                for (int i = 0; i < 3; i++) {
                    assertErr(login(OTHER_HOST, router.port(), "wrong"), 1045);
                }
                // the block lasts one window (1 s) after the third failure: poll, never longer than the bound
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                RawPacket answer;
                do {
                    Thread.sleep(100);
                    answer = login(OTHER_HOST, router.port(), ProxyCluster.APP_PASSWORD);
                    if (!answer.isOk()) {
                        assertErr(answer, 1129);
                    }
                } while (!answer.isOk() && System.nanoTime() < deadline);
                assertThat(answer.isOk())
                        .as("logs in again after the window: %s", answer)
                        .isTrue();
            }
        });
    }

    @Test
    void userBeyondItsMaxConnectionsGetsUserLimitReachedAndChurnLeaksNoSlot(ProxyCluster cluster) {
        assertTimeoutPreemptively(BOUND, () -> {
            try (DedicatedRouter router = DedicatedRouter.start(
                    cluster, dataDirs.resolve("per-user"), "", List.of(APP + ", max_connections: 2}"))) {
                List<RawMySqlClient> held = new ArrayList<>();
                try {
                    held.add(loggedIn(router.port()));
                    held.add(loggedIn(router.port()));
                    assertUserLimit(router.port());
                    // churn on the remaining slot: log in, query, hang up (some mid-handshake), many times
                    held.remove(1).close();
                    for (int i = 0; i < 150; i++) {
                        if (i % 3 == 0) {
                            try (RawMySqlClient quitter = RawMySqlClient.connect(router.port())) {
                                quitter.readGreeting(); // hangs up before logging in: takes no slot
                            }
                        }
                        try (RawMySqlClient client = loginWithinDeadline(router.port())) {
                            assertThat(client.query("SELECT 1")).containsExactly(List.of("1"));
                        }
                    }
                    held.add(loginWithinDeadline(router.port()));
                    assertUserLimit(router.port());
                } finally {
                    for (RawMySqlClient c : held) {
                        c.close();
                    }
                }
            }
        });
    }

    /**
     * COM_CHANGE_USER moves the connection's slot: to a user whose slots are all taken it is
     * refused with 1226 (and the connection closed, as a failed change of user is in MySQL); a
     * successful one takes a slot of the new user and gives back the old user's.
     */
    @Test
    void changeUserMovesTheConnectionsSlot(ProxyCluster cluster) {
        assertTimeoutPreemptively(BOUND, () -> {
            try (DedicatedRouter router = DedicatedRouter.start(
                    cluster,
                    dataDirs.resolve("change-user"),
                    "",
                    List.of(
                            APP + ", max_connections: 2}",
                            "{name: batch, password: batch-secret, max_connections: 1}"))) {
                List<RawMySqlClient> held = new ArrayList<>();
                try {
                    held.add(loggedIn(router.port()));
                    held.add(loggedIn(router.port()));
                    try (RawMySqlClient batch =
                            RawMySqlClient.loggedIn(router.port(), "batch", "batch-secret", ProxyCluster.SCHEMA)) {
                        RawPacket answer =
                                batch.changeUser(ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, ProxyCluster.SCHEMA);
                        assertErr(answer, 1226);
                        assertThat(batch.closedByRouter()).isTrue();
                    }
                    held.remove(0).close();
                    // batch's slot is free again once the router has seen that close; app has one free
                    RawMySqlClient moved = null;
                    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                    while (moved == null) {
                        RawMySqlClient batch = RawMySqlClient.connect(router.port());
                        batch.readGreeting();
                        RawPacket login = batch.login("batch", "batch-secret", ProxyCluster.SCHEMA);
                        RawPacket changed = login.isOk()
                                ? batch.changeUser(
                                        ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, ProxyCluster.SCHEMA)
                                : login;
                        if (changed.isOk()) {
                            moved = batch;
                        } else {
                            batch.close();
                            assertErr(changed, 1226);
                            assertThat(System.nanoTime())
                                    .as("slots free within 10 s")
                                    .isLessThan(deadline);
                            Thread.sleep(20);
                        }
                    }
                    held.add(moved);
                    assertThat(moved.query("SELECT CURRENT_USER() IS NOT NULL")).containsExactly(List.of("1"));
                    assertUserLimit(router.port()); // app: the original connection and the moved one
                    // batch gave its slot back when its connection became app's
                    try (RawMySqlClient batch =
                            RawMySqlClient.loggedIn(router.port(), "batch", "batch-secret", ProxyCluster.SCHEMA)) {
                        assertThat(batch.query("SELECT 1")).containsExactly(List.of("1"));
                    }
                } finally {
                    for (RawMySqlClient c : held) {
                        c.close();
                    }
                }
            }
        });
    }

    private static void assertUserLimit(int port) throws IOException {
        try (RawMySqlClient third = RawMySqlClient.connect(port)) {
            third.readGreeting();
            RawPacket answer = third.login(ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, ProxyCluster.SCHEMA);
            assertErr(answer, 1226);
            assertThat(answer.err().sqlState()).isEqualTo("42000");
            assertThat(answer.err().message())
                    .isEqualTo("User '" + ProxyCluster.APP_USER
                            + "' has exceeded the 'max_user_connections' resource (current value: 2)");
            assertThat(third.closedByRouter()).isTrue();
        }
    }

    private static RawMySqlClient loggedIn(int port) throws IOException {
        return RawMySqlClient.loggedIn(port, ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, ProxyCluster.SCHEMA);
    }

    /** Logs in, retrying while the router has not yet seen the previous connection's close (asynchronous). */
    private static RawMySqlClient loginWithinDeadline(int port) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            RawMySqlClient client = RawMySqlClient.connect(port);
            client.readGreeting();
            RawPacket answer = client.login(ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, ProxyCluster.SCHEMA);
            if (answer.isOk()) {
                return client;
            }
            client.close();
            assertErr(answer, 1226);
            assertThat(System.nanoTime()).as("a slot is free again within 10 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    void statementBeyondMaxStatementBytesIsRefusedAndTheSessionGoesOn(ProxyCluster cluster) {
        assertTimeoutPreemptively(BOUND, () -> {
            try (DedicatedRouter router = DedicatedRouter.start(
                            cluster,
                            dataDirs.resolve("statement-size"),
                            "max_allowed_packet: 1048576, max_statement_bytes: 4096",
                            List.of(APP + "}"));
                    RawMySqlClient client = loggedIn(router.port())) {
                String big = "SELECT '" + "x".repeat(5000) + "'";
                for (Command command : List.of(Command.COM_QUERY, Command.COM_STMT_PREPARE)) {
                    byte[] text = big.getBytes(StandardCharsets.UTF_8);
                    byte[] payload = new byte[text.length + 1];
                    payload[0] = (byte) command.code();
                    System.arraycopy(text, 0, payload, 1, text.length);
                    client.sendCommand(payload);
                    RawPacket answer = client.readPacket();
                    assertErr(answer, 1153);
                    assertThat(answer.sequenceId()).isEqualTo(1);
                    assertThat(answer.err().message())
                            .isEqualTo("Statement of " + text.length
                                    + " bytes is larger than server.max_statement_bytes (4096 bytes)");
                    assertThat(client.query("SELECT 6 * 7"))
                            .as("the session goes on after %s", command)
                            .containsExactly(List.of("42"));
                }
                String fits = "SELECT '" + "x".repeat(4000) + "'";
                assertThat(client.query(fits)).containsExactly(List.of("x".repeat(4000)));
            }
        });
    }

    @Test
    void silentClientsAreTimedOutAndFreeTheirConnectionSlots(ProxyCluster cluster) {
        assertTimeoutPreemptively(BOUND, () -> {
            try (DedicatedRouter router = DedicatedRouter.start(
                    cluster,
                    dataDirs.resolve("slowloris"),
                    "max_connections: 2, handshake_timeout_millis: 300",
                    List.of(APP + "}"))) {
                for (int round = 0; round < 3; round++) {
                    List<RawMySqlClient> silent = new ArrayList<>();
                    try {
                        for (int i = 0; i < 2; i++) {
                            RawMySqlClient client = connectAdmitted(router.port());
                            silent.add(client);
                            client.writeFrame(1, new byte[] {1, 2}, 40); // starts a login and never finishes it
                        }
                        for (RawMySqlClient client : silent) {
                            assertErr(client.readPacket(), 1043);
                            assertThat(client.closedByRouter()).isTrue();
                        }
                    } finally {
                        for (RawMySqlClient c : silent) {
                            c.close();
                        }
                    }
                }
                try (RawMySqlClient client = connectAdmitted(router.port())) {
                    assertThat(client.login(ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, ProxyCluster.SCHEMA)
                                    .isOk())
                            .as("slots of timed-out clients are free again")
                            .isTrue();
                }
            }
        });
    }

    /**
     * Statements deep enough to overflow a recursive parser: the router does not parse them (its
     * planner refuses past 200 parentheses or 1000 chained operators) and, the schema being
     * unsharded, passes them to MariaDB, whose answer (a result or its own error) the client gets.
     * The connection and the event loop survive; the session goes on.
     */
    @Test
    void deeplyNestedStatementsAreAnsweredAndTheSessionGoesOn(ProxyCluster cluster) {
        StringBuilder subqueries = new StringBuilder("SELECT 1 AS x");
        for (int i = 0; i < 2000; i++) {
            subqueries.insert(0, "SELECT * FROM (").append(") t").append(i);
        }
        List<String> statements = List.of(
                "SELECT " + "(".repeat(100_000) + "1" + ")".repeat(100_000),
                "SELECT 1 FROM DUAL WHERE " + "1 = 2 OR ".repeat(100_000) + "1 = 1",
                "SELECT 1" + " UNION ALL SELECT 1".repeat(10_000),
                subqueries.toString(),
                "SELECT " + "1 + ".repeat(100_000) + "1");
        assertTimeoutPreemptively(BOUND, () -> {
            try (DedicatedRouter router = DedicatedRouter.start(
                            cluster, dataDirs.resolve("nesting"), "max_allowed_packet: 4194304", List.of(APP + "}"));
                    RawMySqlClient client = loggedIn(router.port())) {
                for (String sql : statements) {
                    client.sendCommand(RawMySqlClient.comQuery(sql));
                    RawPacket answer = client.readAnswer();
                    if (answer.isErr()) {
                        assertThat(answer.err().message())
                                .as("a reason is given")
                                .isNotBlank();
                    }
                    assertThat(client.query("SELECT 6 * 7"))
                            .as("the session goes on after %s...", sql.substring(0, 40))
                            .containsExactly(List.of("42"));
                }
            }
        });
    }

    /**
     * A client that pipelines COM_PINGs and never reads the answers: the router stops answering
     * once the client's socket is full (channel not writable), stops reading it, and what it holds
     * for the client stays near Netty's 64 KiB high-water mark, while the client's writes block.
     */
    @Test
    void pipeliningClientThatNeverReadsIsHeldBackNotBuffered(ProxyCluster cluster) {
        assertTimeoutPreemptively(BOUND, () -> {
            ExecutorService writer = Executors.newSingleThreadExecutor();
            try (DedicatedRouter router =
                            DedicatedRouter.start(cluster, dataDirs.resolve("pipelining"), "", List.of(APP + "}"));
                    RawMySqlClient client = loggedIn(router.port())) {
                byte[] pings = new byte[5 * 200_000]; // 200k COM_PING frames, sequence id 0
                for (int i = 0; i < pings.length; i += 5) {
                    pings[i] = 1;
                    pings[i + 4] = (byte) Command.COM_PING.code();
                }
                Future<?> sent = writer.submit(() -> {
                    for (int i = 0; i < 40; i++) { // 8M pings, 40 MB: far more than socket buffers hold
                        client.writeRaw(pings);
                    }
                    return null;
                });
                long most = awaitBackpressure(router, sent, b -> !b.readingClient());
                assertThat(most).as("bytes held for the client at most").isLessThanOrEqualTo(256 * 1024);
                assertThat(sent.isDone())
                        .as("the client's writes block: the router stopped reading")
                        .isFalse();
            } finally {
                writer.shutdownNow();
            }
        });
    }

    /**
     * A client that asks for a 40 MB result and never reads it: the router pauses the backend
     * connection (autoRead off) instead of buffering the result.
     */
    @Test
    void resultNobodyReadsPausesTheBackendInsteadOfBuffering(ProxyCluster cluster) {
        assertTimeoutPreemptively(BOUND, () -> {
            try (DedicatedRouter router =
                            DedicatedRouter.start(cluster, dataDirs.resolve("unread"), "", List.of(APP + "}"));
                    RawMySqlClient client = loggedIn(router.port())) {
                client.sendCommand(RawMySqlClient.comQuery(BadInputIT.VANISH_QUERY));
                long most = awaitBackpressure(router, null, b -> Boolean.FALSE.equals(b.readingBackend()));
                // the high-water mark plus what one read of the backend socket brings in
                assertThat(most).as("bytes held for the client at most").isLessThanOrEqualTo(4 * 1024 * 1024);
            }
        });
    }

    /**
     * Samples the router's only session until {@code engaged} held for 20 samples in a row (the
     * router stays paused), or fails after 60 s, when the session closed or when {@code writes} completed (nothing held the
     * client back); returns the most bytes the session held for its client meanwhile.
     */
    private static long awaitBackpressure(
            DedicatedRouter router, Future<?> writes, java.util.function.Predicate<SessionBuffers> engaged)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        long most = 0;
        int inARow = 0;
        while (inARow < 20) {
            assertThat(router.router().clientConnections())
                    .as("the session is open")
                    .isEqualTo(1);
            assertThat(System.nanoTime()).as("backpressure within 60 s").isLessThan(deadline);
            // a session whose loop is busy for a second (answering a read full of pings) is left out
            List<SessionBuffers> sessions = router.router().sessionBuffers();
            assertThat(writes == null || !writes.isDone())
                    .as("the client wrote everything: the router read it all (%s)", sessions)
                    .isTrue();
            if (sessions.size() == 1) {
                SessionBuffers b = sessions.get(0);
                most = Math.max(most, b.pendingClientBytes());
                inARow = engaged.test(b) ? inARow + 1 : 0;
            }
            Thread.sleep(50);
        }
        return most;
    }

    /** Connects until the router greets instead of answering 1040 (it counts a close asynchronously). */
    private static RawMySqlClient connectAdmitted(int port) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            RawMySqlClient client = RawMySqlClient.connect(port);
            RawPacket first = client.readPacket();
            if (!first.isErr()) {
                client.readGreetingFrom(first);
                return client;
            }
            client.close();
            assertErr(first, 1040);
            assertThat(System.nanoTime()).as("a slot is free again within 10 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
