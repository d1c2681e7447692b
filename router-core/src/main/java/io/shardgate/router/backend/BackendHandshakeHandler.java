package io.shardgate.router.backend;

import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_CONNECT_WITH_DB;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_PLUGIN_AUTH;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_PROTOCOL_41;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_SECURE_CONNECTION;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_SSL;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Promise;
import io.shardgate.protocol.auth.AuthPlugin;
import io.shardgate.protocol.auth.AuthPlugins;
import io.shardgate.protocol.auth.CachingSha2Password;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.AuthSwitchRequest;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.HandshakeResponse41;
import io.shardgate.protocol.packet.HandshakeV10;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.packet.SslRequest;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.net.PacketWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.net.ssl.SSLException;

/**
 * The client side of the MySQL connection phase, run by the router against a backend: reads
 * HandshakeV10, upgrades to TLS with an SSLRequest when the hostgroup's {@code tls.mode} asks for it
 * and the server offers CLIENT_SSL, answers with HandshakeResponse41, follows auth switches and
 * caching_sha2_password's extra round trips (fast auth; full auth sends the password in the clear
 * only inside TLS, otherwise encrypted with the server's RSA public key), and completes the promise
 * with the authenticated {@link BackendConnection} on the server's OK.
 *
 * <p>Runs on the backend channel's event loop; removes itself (and the frame decoder before it)
 * once authenticated so the relay sees raw bytes.
 */
final class BackendHandshakeHandler extends ChannelInboundHandlerAdapter {
    private static final int REQUIRED = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH;

    private final BackendLogin login;
    private final BackendAddress address;
    private final String label;
    private final SslContext sslContext;
    private final Promise<BackendConnection> promise;
    private boolean secure;
    private HandshakeV10 handshake;
    private int capabilities;
    private int mariaDbCapabilities;
    private AuthPlugin plugin;
    private byte[] seed;
    private boolean awaitingPublicKey;

    /**
     * @param sslContext the client TLS context for {@code login.tls()}; null when it is disabled
     */
    BackendHandshakeHandler(
            BackendLogin login, BackendAddress address, SslContext sslContext, Promise<BackendConnection> promise) {
        this.login = login;
        this.address = address;
        this.label = address.toString();
        this.sslContext = sslContext;
        this.promise = promise;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Packet packet = (Packet) msg;
        try {
            if (handshake == null) {
                onHandshake(ctx, packet);
            } else {
                onAuthReply(ctx, packet);
            }
        } catch (RuntimeException e) {
            fail(ctx, ErrorCode.ER_HANDSHAKE_ERROR, "bad handshake from backend " + label + ": " + e.getMessage());
        } finally {
            packet.release();
        }
    }

    private void onHandshake(ChannelHandlerContext ctx, Packet packet) {
        ByteBuf payload = packet.payload();
        if (payload.isReadable() && payload.getUnsignedByte(payload.readerIndex()) == 0xFF) {
            // e.g. "Host is blocked" or "Too many connections" before any handshake
            fail(ctx, ErrPacket.read(payload));
            return;
        }
        handshake = HandshakeV10.read(payload);
        int serverCaps = handshake.capabilities().flags();
        if ((serverCaps & REQUIRED) != REQUIRED) {
            fail(ctx, ErrorCode.ER_NOT_SUPPORTED_YET, "backend " + label + " lacks protocol 4.1 secure authentication");
            return;
        }
        capabilities = login.capabilities() & serverCaps;
        if ((serverCaps & CapabilityFlags.CLIENT_LONG_PASSWORD) == 0) {
            // MariaDB: no CLIENT_MYSQL bit, extended capabilities in the handshake's reserved bytes
            mariaDbCapabilities =
                    login.mariaDbCapabilities() & handshake.capabilities().mariaDbFlags();
        }
        if (login.schema() == null) {
            capabilities &= ~CLIENT_CONNECT_WITH_DB;
        }
        int next = packet.lastSequenceId() + 1;
        if (login.tls().enabled()) {
            if ((serverCaps & CLIENT_SSL) != 0) {
                startTls(ctx, next);
                return;
            }
            if (login.tls().mode().mandatory()) {
                fail(
                        ctx,
                        ErrorCode.CR_SSL_CONNECTION_ERROR,
                        ErrorCode.CR_SSL_CONNECTION_ERROR.format("backend " + label
                                + " does not offer TLS (no CLIENT_SSL in its handshake) but the hostgroup's "
                                + login.tls().describe() + " requires it; enable ssl on the server or lower"
                                + " tls.mode to preferred"));
                return;
            }
            // preferred: the server has no TLS, go on in plaintext
        }
        sendResponse(ctx, next);
    }

    /**
     * Sends the SSLRequest (the response's first 32 bytes with CLIENT_SSL), then puts TLS in front of
     * the frame decoder; the HandshakeResponse41 follows inside TLS once the TLS handshake is done.
     */
    private void startTls(ChannelHandlerContext ctx, int sequenceId) {
        capabilities |= CLIENT_SSL;
        SslRequest request =
                new SslRequest(new Capabilities(capabilities, mariaDbCapabilities), 1 << 30, login.characterSet());
        // written and flushed now, on this event loop, so it leaves before the TLS handler exists
        send(ctx, sequenceId, request::write);
        SslHandler ssl = sslContext.newHandler(ctx.alloc(), address.host(), address.port());
        ctx.pipeline().addFirst(BackendConnection.TLS, ssl);
        ssl.handshakeFuture().addListener(f -> {
            if (f.isSuccess()) {
                secure = true;
                sendResponse(ctx, sequenceId + 1);
            } else {
                failTls(ctx, f.cause());
            }
        });
    }

    private void sendResponse(ChannelHandlerContext ctx, int sequenceId) {
        seed = handshake.authPluginData();
        plugin = AuthPlugins.forName(handshake.authPluginName())
                .orElse(AuthPlugins.forName("mysql_native_password").orElseThrow());
        byte[] auth = plugin.initialResponse(login.password(), seed);
        Map<String, String> attrs = new LinkedHashMap<>();
        attrs.put("_client_name", "shardgate");
        attrs.put("program_name", "shardgate");
        HandshakeResponse41 response = new HandshakeResponse41(
                new Capabilities(capabilities, mariaDbCapabilities),
                1 << 30,
                login.characterSet(),
                login.user(),
                auth,
                login.schema(),
                plugin.name(),
                attrs);
        send(ctx, sequenceId, out -> response.write(out));
    }

    private void onAuthReply(ChannelHandlerContext ctx, Packet packet) {
        ByteBuf payload = packet.payload();
        int next = packet.lastSequenceId() + 1;
        int header = payload.isReadable() ? payload.getUnsignedByte(payload.readerIndex()) : -1;
        switch (header) {
            case 0x00 -> succeed(ctx, OkPacket.read(payload, new Capabilities(capabilities)));
            case 0xFF -> fail(ctx, ErrPacket.read(payload));
            case 0xFE -> {
                AuthSwitchRequest sw = AuthSwitchRequest.read(payload);
                AuthPlugin switched = AuthPlugins.forName(sw.pluginName()).orElse(null);
                if (switched == null) {
                    fail(
                            ctx,
                            ErrorCode.ER_NOT_SUPPORTED_YET,
                            "backend " + label + " asks for auth plugin '" + sw.pluginName()
                                    + "', which Shardgate does not speak");
                    return;
                }
                plugin = switched;
                seed = sw.scramble();
                byte[] auth = plugin.initialResponse(login.password(), seed);
                send(ctx, next, out -> out.writeBytes(auth));
            }
            case 0x01 -> onMoreData(ctx, payload, next);
            default ->
                fail(
                        ctx,
                        ErrorCode.ER_HANDSHAKE_ERROR,
                        "unexpected packet 0x" + Integer.toHexString(header) + " from backend " + label
                                + " during authentication");
        }
    }

    /** caching_sha2_password: fast-auth result, full-auth request, or the public key we asked for. */
    private void onMoreData(ChannelHandlerContext ctx, ByteBuf payload, int next) {
        byte[] data = new byte[payload.readableBytes() - 1];
        payload.getBytes(payload.readerIndex() + 1, data);
        if (awaitingPublicKey) {
            awaitingPublicKey = false;
            byte[] encrypted = CachingSha2Password.encryptPassword(
                    login.password(),
                    seed,
                    CachingSha2Password.parsePublicKey(new String(data, StandardCharsets.US_ASCII)));
            send(ctx, next, out -> out.writeBytes(encrypted));
        } else if (data.length == 1 && data[0] == CachingSha2Password.FAST_AUTH_SUCCESS) {
            // the OK packet follows
        } else if (data.length == 1 && data[0] == CachingSha2Password.PERFORM_FULL_AUTHENTICATION) {
            if (secure) {
                // inside TLS the server takes the password itself, NUL-terminated
                byte[] password = CachingSha2Password.plaintextPassword(login.password());
                send(ctx, next, out -> out.writeBytes(password));
            } else {
                // never the password in the clear: ask for the server's RSA key and encrypt it
                awaitingPublicKey = true;
                send(ctx, next, out -> out.writeByte(CachingSha2Password.REQUEST_PUBLIC_KEY));
            }
        } else {
            fail(ctx, ErrorCode.ER_HANDSHAKE_ERROR, "unexpected auth data from backend " + label);
        }
    }

    private void succeed(ChannelHandlerContext ctx, OkPacket ok) {
        ctx.pipeline().remove(this);
        // CLIENT_SSL only concerned the login; the relay compares the result-format flags
        BackendConnection connection = new BackendConnection(
                ctx.channel(),
                handshake,
                new Capabilities(capabilities & ~CLIENT_SSL, mariaDbCapabilities),
                ok.statusFlags(),
                label);
        if (!promise.trySuccess(connection)) {
            ctx.close();
        }
    }

    private void send(ChannelHandlerContext ctx, int sequenceId, java.util.function.Consumer<ByteBuf> payload) {
        ctx.writeAndFlush(PacketWriter.frame(ctx.alloc(), sequenceId, 128, payload));
    }

    private void fail(ChannelHandlerContext ctx, ErrorCode code, String message) {
        fail(ctx, new ErrPacket(code.code(), code.sqlState(), message));
    }

    private void fail(ChannelHandlerContext ctx, ErrPacket error) {
        promise.tryFailure(new BackendException(error));
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail(ctx, ErrorCode.ER_HANDSHAKE_ERROR, "backend " + label + " closed the connection during login");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (sslCause(cause) != null) {
            failTls(ctx, cause);
        } else {
            fail(ctx, ErrorCode.ER_HANDSHAKE_ERROR, "backend " + label + ": " + cause.getMessage());
        }
    }

    /** A TLS handshake that failed: the server, what was checked, and the JDK's reason (e.g. PKIX path building). */
    private void failTls(ChannelHandlerContext ctx, Throwable cause) {
        Throwable ssl = sslCause(cause);
        String reason = String.valueOf((ssl != null ? ssl : cause).getMessage());
        fail(
                ctx,
                ErrorCode.CR_SSL_CONNECTION_ERROR,
                ErrorCode.CR_SSL_CONNECTION_ERROR.format("TLS handshake with backend " + label + " failed ("
                        + login.tls().describe() + "): " + reason));
    }

    private static Throwable sslCause(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof SSLException) {
                return t;
            }
        }
        return null;
    }
}
