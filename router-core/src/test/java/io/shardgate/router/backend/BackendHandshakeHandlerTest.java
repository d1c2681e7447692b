package io.shardgate.router.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.Promise;
import io.shardgate.protocol.auth.CachingSha2Password;
import io.shardgate.protocol.frame.PacketFrameDecoder;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.HandshakeResponse41;
import io.shardgate.protocol.packet.HandshakeV10;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.tls.BackendTlsMode;
import io.shardgate.router.tls.BackendTlsSettings;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The router logging in to a MySQL 8 server with caching_sha2_password, the server played by the
 * test (no MySQL 8 binary here, and MariaDB does not implement caching_sha2_password as a server):
 * the exchange of MySQL 8's sql/auth/sha2_password.cc for a password not in the server's cache.
 * Over plaintext the router must never send the password itself: it asks for the server's RSA key
 * (0x02) and sends the password encrypted with it.
 */
class BackendHandshakeHandlerTest {
    private static final String PASSWORD = "backend-S3cret!";
    private static final byte[] SEED = "0123456789abcdefghij".getBytes(StandardCharsets.US_ASCII);
    private static final int MYSQL8_CAPABILITIES = 0xFFFF_F7FF & ~CapabilityFlags.CLIENT_SSL; // no TLS offered

    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final Promise<BackendConnection> promise = channel.eventLoop().newPromise();

    private void start(BackendTlsSettings tls) {
        BackendLogin login = new BackendLogin(
                "router", PASSWORD, null, Collations.UTF8MB4_GENERAL_CI, BackendConnector.BASE_CAPABILITIES, 0, tls);
        channel.pipeline()
                .addLast(BackendConnection.FRAMES, new PacketFrameDecoder(1 << 24))
                .addLast(new BackendHandshakeHandler(login, new BackendAddress("db8.example", 3306), null, promise));
    }

    private void serverSends(int sequenceId, Consumer<ByteBuf> payload) {
        ByteBuf body = Unpooled.buffer();
        payload.accept(body);
        ByteBuf frame = Unpooled.buffer(4 + body.readableBytes());
        frame.writeMediumLE(body.readableBytes()).writeByte(sequenceId).writeBytes(body);
        body.release();
        channel.writeInbound(frame);
    }

    /** The next packet the router sent: its payload, after checking its sequence id. */
    private byte[] routerSent(int expectedSequenceId) {
        ByteBuf frame = channel.readOutbound();
        assertThat(frame).as("a packet from the router").isNotNull();
        try {
            int length = frame.readUnsignedMediumLE();
            assertThat(frame.readUnsignedByte()).as("sequence id").isEqualTo((short) expectedSequenceId);
            byte[] payload = new byte[length];
            frame.readBytes(payload);
            return payload;
        } finally {
            frame.release();
        }
    }

    private static void greeting(ByteBuf out) {
        new HandshakeV10(
                        HandshakeV10.PROTOCOL_VERSION,
                        "8.0.36",
                        7,
                        SEED,
                        new Capabilities(MYSQL8_CAPABILITIES, 0),
                        Collations.UTF8MB4_GENERAL_CI,
                        ServerStatus.SERVER_STATUS_AUTOCOMMIT,
                        CachingSha2Password.NAME)
                .write(out);
    }

    @Test
    void fullAuthenticationOverPlaintextUsesTheServersRsaKey() throws Exception {
        start(BackendTlsSettings.DISABLED);
        serverSends(0, BackendHandshakeHandlerTest::greeting);

        ByteBuf response = Unpooled.wrappedBuffer(routerSent(1));
        HandshakeResponse41 login = HandshakeResponse41.read(response);
        assertThat(login.authPluginName()).isEqualTo(CachingSha2Password.NAME);
        assertThat(login.authResponse()).isEqualTo(CachingSha2Password.scramble(PASSWORD, SEED));
        assertThat(login.capabilities().has(CapabilityFlags.CLIENT_SSL)).isFalse();

        // the password is not in the server's cache: "perform full authentication"
        serverSends(2, out -> out.writeByte(0x01).writeByte(CachingSha2Password.PERFORM_FULL_AUTHENTICATION));
        assertThat(routerSent(3))
                .as("the router asks for the public key instead of sending the password")
                .containsExactly(CachingSha2Password.REQUEST_PUBLIC_KEY);

        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        KeyPair serverKeys = generator.generateKeyPair();
        String pem = CachingSha2Password.toPem(serverKeys.getPublic());
        serverSends(4, out -> out.writeByte(0x01).writeCharSequence(pem, StandardCharsets.US_ASCII));

        byte[] encrypted = routerSent(5);
        assertThat(new String(encrypted, StandardCharsets.ISO_8859_1)).doesNotContain(PASSWORD);
        assertThat(CachingSha2Password.decryptPassword(encrypted, SEED, serverKeys.getPrivate()))
                .asString(StandardCharsets.UTF_8)
                .isEqualTo(PASSWORD);

        serverSends(
                6,
                out -> OkPacket.of(0, 0, ServerStatus.SERVER_STATUS_AUTOCOMMIT, 0)
                        .write(out, new Capabilities(MYSQL8_CAPABILITIES, 0)));
        assertThat(promise.isSuccess()).as("%s", promise.cause()).isTrue();
        assertThat(promise.getNow().handshake().serverVersion()).isEqualTo("8.0.36");
        promise.getNow().close();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void fastAuthenticationNeedsNoFurtherRoundTrip() {
        start(BackendTlsSettings.DISABLED);
        serverSends(0, BackendHandshakeHandlerTest::greeting);
        routerSent(1);
        serverSends(2, out -> out.writeByte(0x01).writeByte(CachingSha2Password.FAST_AUTH_SUCCESS));
        assertThat((Object) channel.readOutbound())
                .as("nothing sent after fast auth success")
                .isNull();
        serverSends(
                3,
                out -> OkPacket.of(0, 0, ServerStatus.SERVER_STATUS_AUTOCOMMIT, 0)
                        .write(out, new Capabilities(MYSQL8_CAPABILITIES, 0)));
        assertThat(promise.isSuccess()).as("%s", promise.cause()).isTrue();
        promise.getNow().close();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void requiredTlsAgainstAServerWithoutItFailsBeforeAnyCredentialIsSent() {
        start(new BackendTlsSettings(BackendTlsMode.REQUIRED, null, null, null));
        serverSends(0, BackendHandshakeHandlerTest::greeting);
        assertThat((Object) channel.readOutbound())
                .as("no HandshakeResponse41 in the clear")
                .isNull();
        assertThat(promise.isDone()).isTrue();
        ErrPacket error = ((BackendException) promise.cause()).error();
        assertThat(error.code()).isEqualTo(2026);
        assertThat(error.message())
                .contains("backend db8.example:3306 does not offer TLS")
                .contains("tls.mode required");
        assertThat(channel.isOpen()).isFalse();
        channel.finishAndReleaseAll();
    }
}
