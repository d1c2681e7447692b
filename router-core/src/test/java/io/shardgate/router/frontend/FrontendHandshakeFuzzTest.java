package io.shardgate.router.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.shardgate.protocol.auth.CachingSha2Password;
import io.shardgate.protocol.auth.MySqlNativePassword;
import io.shardgate.protocol.auth.StoredCredential;
import io.shardgate.protocol.frame.PacketFrameDecoder;
import io.shardgate.protocol.frame.PacketTooLargeException;
import io.shardgate.protocol.packet.AuthSwitchRequest;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.HandshakeResponse41;
import io.shardgate.protocol.packet.HandshakeV10;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.config.ServerSettings;
import io.shardgate.router.config.UserConfig;
import io.shardgate.router.login.LoginFailures;
import io.shardgate.router.login.UserConnections;
import io.shardgate.router.login.UserDirectory;
import io.shardgate.router.metrics.RouterMetrics;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Coverage-guided fuzzing (Jazzer) of the server side of the MySQL connection phase: {@link
 * FrontendHandshakeHandler} behind a {@link PacketFrameDecoder} in an EmbeddedChannel, fed client
 * packets the fuzzer chooses step by step: raw bytes, framed garbage, HandshakeResponse41s with
 * fuzzed fields, or the right answer to what the router just asked (a correct scramble for the
 * greeting's or an AuthSwitchRequest's seed, caching_sha2_password's RSA-encrypted password), so
 * that the success, auth-switch, full-authentication, blocked-host and per-user-limit paths are
 * reached as well as the failure paths. The handshake timeout fires when the fuzzer advances time.
 *
 * <p>Properties: no exception leaves the pipeline; the router only ever sends a greeting, an
 * AuthSwitchRequest, AuthMoreData or an ERR with one of the handshake's codes, and closes after an
 * ERR; a session opens only after a correct answer; per-user slots are released on close.
 */
class FrontendHandshakeFuzzTest {
    private static final String PASSWORD = "s3cret";
    private static final KeyPair RSA = rsa();
    private static final UserConfig APP = new UserConfig("app", StoredCredential.fromPassword(PASSWORD), null);
    /** Only a mysql_native_password hash: caching_sha2_password needs full authentication. */
    private static final UserConfig LEGACY = new UserConfig(
            "legacy",
            StoredCredential.parse(
                    StoredCredential.fromPassword(PASSWORD).render().split(" ")[0]),
            null);

    private static final UserConfig EMPTY = new UserConfig("nopw", StoredCredential.fromPassword(""), null);
    private static final UserConfig LIMITED =
            new UserConfig("limited", StoredCredential.fromPassword(PASSWORD), null, false, 1);
    private static final List<UserConfig> USERS = List.of(APP, LEGACY, EMPTY, LIMITED);
    private static final String[] PLUGINS = {"mysql_native_password", "caching_sha2_password", "sha256_password", ""};
    private static final Set<Integer> HANDSHAKE_ERRORS = Set.of(1043, 1045, 1129, 1153, 1226, 1235);
    private static final ServerSettings SETTINGS = RouterConfig.parse("""
                    server: {max_allowed_packet: 1024, handshake_timeout_millis: 1000}
                    users: [{name: app, password: x}]
                    hostgroups: [{id: 10, writer: "db:3306", user: u, password: p}]
                    """).server();

    private static KeyPair rsa() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Stands in for the session the login opens. Bytes the client sent behind its login in the
     * same read are decoded into it (a packet beyond max_allowed_packet included): those are the
     * session's to answer (FrontendSession does), not the handshake's, so they are only kept here.
     */
    private static final class OpenedSession extends ChannelInboundHandlerAdapter {
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            assertThat(cause).isInstanceOf(PacketTooLargeException.class);
        }
    }

    /** What the router asked last: the seed and plugin a correct answer needs. */
    private static final class Exchange {
        byte[] seed;
        String plugin = "mysql_native_password";
        UserConfig user;
        boolean fullAuth;
        boolean closedAfterErr;
        int errors;
    }

    @FuzzTest(maxDuration = "5m")
    void handshake(FuzzedDataProvider data) {
        LoginFailures failures = new LoginFailures(2, Duration.ofMinutes(1));
        if (data.consumeBoolean()) {
            failures.failed("unknown"); // an EmbeddedChannel's remote address has no host: "unknown"
            failures.failed("unknown");
        }
        UserConnections connections = new UserConnections();
        boolean limitedHeld = data.consumeBoolean() && connections.tryAcquire(LIMITED);
        FrontendServices services = new FrontendServices(
                SETTINGS,
                new UserDirectory(USERS),
                null,
                RSA,
                CachingSha2Password.toPem(RSA.getPublic()),
                "8.0.40-fuzz",
                data.consumeBoolean() ? 0 : 0x1C,
                null,
                null,
                new AtomicInteger(),
                new RouterMetrics(),
                new SessionRegistry(),
                null,
                null,
                failures,
                connections,
                null,
                null,
                null);
        List<UserConfig> opened = new ArrayList<>();
        EmbeddedChannel channel = new EmbeddedChannel(
                new PacketFrameDecoder(SETTINGS.maxAllowedPacket()),
                new FrontendHandshakeHandler(services, (user, caps, schema, okSequenceId) -> {
                    opened.add(user);
                    return new OpenedSession();
                }));
        Exchange exchange = new Exchange();
        int sequenceId = 1;
        try {
            readReplies(channel, exchange);
            for (int step = 0;
                    step < 6 && channel.isActive() && data.remainingBytes() > 0 && opened.isEmpty();
                    step++) {
                int kind = data.consumeInt(0, 4);
                switch (kind) {
                    case 0 -> channel.writeInbound(Unpooled.wrappedBuffer(data.consumeBytes(data.consumeInt(0, 300))));
                    case 1 -> write(channel, sequenceId++, data.consumeBytes(data.consumeInt(0, 1200)));
                    case 2 -> write(channel, sequenceId++, handshakeResponse(data, exchange));
                    case 3 -> write(channel, sequenceId++, correctAnswer(exchange));
                    default -> {
                        channel.advanceTimeBy(SETTINGS.handshakeTimeoutMillis() + 1, TimeUnit.MILLISECONDS);
                        channel.runScheduledPendingTasks();
                    }
                }
                channel.runPendingTasks();
                readReplies(channel, exchange);
            }
            channel.checkException();
            if (exchange.errors > 0) {
                assertThat(channel.isActive()).as("closed after an ERR").isFalse();
                assertThat(opened).isEmpty();
            }
            for (UserConfig user : opened) {
                assertThat(limitedHeld && user == LIMITED)
                        .as("limited user beyond its slot")
                        .isFalse();
            }
        } finally {
            channel.finishAndReleaseAll();
        }
        assertThat(connections.open("limited")).as("slots released on close").isEqualTo(limitedHeld ? 1 : 0);
    }

    private static void write(EmbeddedChannel channel, int sequenceId, byte[] payload) {
        ByteBuf frame = Unpooled.buffer(4 + payload.length);
        frame.writeMediumLE(payload.length).writeByte(sequenceId).writeBytes(payload);
        channel.writeInbound(frame);
    }

    private static byte[] handshakeResponse(FuzzedDataProvider data, Exchange exchange) {
        int flags = data.consumeBoolean() ? data.consumeInt() : 0x000FA685;
        String plugin = PLUGINS[data.consumeInt(0, PLUGINS.length - 1)];
        UserConfig user = USERS.get(data.consumeInt(0, USERS.size() - 1));
        String name = data.consumeBoolean() ? user.name() : data.consumeString(40);
        exchange.user = user;
        exchange.plugin = plugin;
        byte[] auth = data.consumeBoolean() && exchange.seed != null
                ? scramble(user, plugin, exchange.seed)
                : data.consumeBytes(data.consumeInt(0, 40));
        Map<String, String> attributes = new LinkedHashMap<>();
        if (data.consumeBoolean()) {
            attributes.put(data.consumeString(20), data.consumeString(40));
        }
        HandshakeResponse41 response = new HandshakeResponse41(
                new Capabilities(flags),
                data.consumeInt(),
                data.consumeInt(0, 255),
                name,
                auth,
                data.consumeBoolean() ? data.consumeString(30) : null,
                plugin,
                attributes);
        ByteBuf out = Unpooled.buffer();
        try {
            response.write(out);
        } catch (RuntimeException e) {
            // the writer refuses what it cannot encode (e.g. a long auth response without lenenc)
            out.release();
            return new byte[0];
        }
        byte[] bytes = new byte[out.readableBytes()];
        out.readBytes(bytes);
        out.release();
        return bytes;
    }

    private static byte[] scramble(UserConfig user, String plugin, byte[] seed) {
        String password = user == EMPTY ? "" : PASSWORD;
        if (password.isEmpty()) {
            return new byte[0];
        }
        return plugin.equals(CachingSha2Password.NAME)
                ? CachingSha2Password.scramble(password, seed)
                : MySqlNativePassword.scramble(password, seed);
    }

    /** The reply a real client with the right password sends to the router's last request. */
    private static byte[] correctAnswer(Exchange exchange) {
        if (exchange.seed == null || exchange.user == null) {
            return new byte[0];
        }
        if (exchange.fullAuth) {
            String password = exchange.user == EMPTY ? "" : PASSWORD;
            return CachingSha2Password.encryptPassword(password, exchange.seed, RSA.getPublic());
        }
        return scramble(exchange.user, exchange.plugin, exchange.seed);
    }

    /** Reads and checks every packet the router sent; releases them. */
    private static void readReplies(EmbeddedChannel channel, Exchange exchange) {
        ByteBuf frame;
        while ((frame = channel.readOutbound()) != null) {
            try {
                while (frame.isReadable()) {
                    int length = frame.readUnsignedMediumLE();
                    frame.skipBytes(1);
                    ByteBuf payload = frame.readSlice(length);
                    int header = payload.getUnsignedByte(payload.readerIndex());
                    switch (header) {
                        case HandshakeV10.PROTOCOL_VERSION ->
                            exchange.seed = HandshakeV10.read(payload).authPluginData();
                        case 0xFE -> {
                            AuthSwitchRequest request = AuthSwitchRequest.read(payload);
                            exchange.seed = request.scramble();
                            exchange.plugin = request.pluginName();
                        }
                        case 0x01 ->
                            exchange.fullAuth = payload.getByte(payload.readerIndex() + 1)
                                    == CachingSha2Password.PERFORM_FULL_AUTHENTICATION;
                        case ErrPacket.HEADER -> {
                            ErrPacket error = ErrPacket.read(payload);
                            assertThat(HANDSHAKE_ERRORS).as("%s", error).contains(error.code());
                            exchange.errors++;
                        }
                        default -> throw new AssertionError("unexpected packet 0x" + Integer.toHexString(header));
                    }
                }
            } finally {
                frame.release();
            }
        }
    }
}
