package io.shardgate.router.frontend;

import static io.shardgate.protocol.type.CapabilityFlags.*;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.frame.PacketFrameDecoder;
import io.shardgate.protocol.frame.PacketTooLargeException;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.HandshakeResponse41;
import io.shardgate.protocol.packet.HandshakeV10;
import io.shardgate.protocol.packet.SslRequest;
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.config.UserConfig;
import io.shardgate.router.login.ClientAuthentication;
import io.shardgate.router.net.PacketWriter;
import io.shardgate.router.routing.Errors;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of the MySQL connection phase for one client: sends HandshakeV10, upgrades to
 * TLS on an SSLRequest, authenticates (see {@link ClientAuthentication}), opens the session's
 * backend connection, and hands the channel to a {@link FrontendSession} with the final OK.
 *
 * <p>Runs on the client channel's event loop. A client that does not finish within
 * {@code handshake_timeout_millis} gets ER_HANDSHAKE_ERROR and is closed.
 */
public final class FrontendHandshakeHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(FrontendHandshakeHandler.class);

    /** Capabilities the router offers clients; CLIENT_SSL is added when TLS is configured. */
    static final int SERVER_CAPABILITIES = CLIENT_LONG_PASSWORD
            | CLIENT_FOUND_ROWS
            | CLIENT_LONG_FLAG
            | CLIENT_CONNECT_WITH_DB
            | CLIENT_LOCAL_FILES
            | CLIENT_IGNORE_SPACE
            | CLIENT_PROTOCOL_41
            | CLIENT_INTERACTIVE
            | CLIENT_TRANSACTIONS
            | CLIENT_SECURE_CONNECTION
            | CLIENT_MULTI_STATEMENTS
            | CLIENT_MULTI_RESULTS
            | CLIENT_PS_MULTI_RESULTS
            | CLIENT_PLUGIN_AUTH
            | CLIENT_CONNECT_ATTRS
            | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | CLIENT_SESSION_TRACK
            | CLIENT_DEPRECATE_EOF;

    private final FrontendServices services;
    private final SessionOpener opener;
    private final int connectionId;
    private final byte[] seed = ClientAuthentication.newSeed();
    private ScheduledFuture<?> timeout;
    private Capabilities capabilities;
    private HandshakeResponse41 response;
    private ClientAuthentication auth;
    private int sequenceId;
    private boolean secure;
    private boolean done;

    public FrontendHandshakeHandler(FrontendServices services) {
        this(services, null);
    }

    /** A handshake whose authenticated connection {@code opener} takes over (null: a routing session). */
    public FrontendHandshakeHandler(FrontendServices services, SessionOpener opener) {
        this.services = services;
        this.opener = opener;
        this.connectionId = services.connectionIds().incrementAndGet();
    }

    private int offeredCapabilities() {
        int caps = services.tls() != null ? SERVER_CAPABILITIES | CLIENT_SSL : SERVER_CAPABILITIES;
        // like a MariaDB server: no CLIENT_MYSQL bit when extended capabilities are announced
        return services.mariaDbCapabilities() != 0 ? caps & ~CLIENT_LONG_PASSWORD : caps;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        services.metrics().connectionAccepted();
        String host = remoteHost(ctx);
        if (services.loginFailures().blocked(host)) {
            // as MySQL answers a blocked host: the error instead of the greeting
            log.debug(
                    "client {}: blocked after {} failed logins",
                    host,
                    services.loginFailures().maxFailures());
            sequenceId = -1;
            refuse(
                    ctx,
                    Errors.of(
                            ErrorCode.ER_HOST_IS_BLOCKED,
                            "Host '" + host + "' is blocked because of many connection errors; it is unblocked "
                                    + services.loginFailures().window().toMillis()
                                    + " ms after its last counted failure (server.login_failure_window_millis)"));
            ctx.fireChannelActive();
            return;
        }
        int timeoutMillis = services.settings().handshakeTimeoutMillis();
        timeout = ctx.executor()
                .schedule(
                        () -> refuse(
                                ctx,
                                Errors.of(
                                        ErrorCode.ER_HANDSHAKE_ERROR,
                                        "Bad handshake: not completed within " + timeoutMillis + " ms")),
                        timeoutMillis,
                        TimeUnit.MILLISECONDS);
        HandshakeV10 greeting = new HandshakeV10(
                HandshakeV10.PROTOCOL_VERSION,
                services.serverVersion(),
                connectionId,
                seed,
                new Capabilities(offeredCapabilities(), services.mariaDbCapabilities()),
                Collations.UTF8MB4_GENERAL_CI,
                ServerStatus.SERVER_STATUS_AUTOCOMMIT,
                services.settings().authPlugin());
        send(ctx, 0, greeting::write);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Packet packet = (Packet) msg;
        try {
            if (done) {
                return; // bytes after a refusal or while the backend connects are dropped
            }
            sequenceId = packet.lastSequenceId();
            if (auth == null) {
                onHandshakeResponse(ctx, packet.payload());
            } else {
                byte[] bytes = new byte[packet.payload().readableBytes()];
                packet.payload().readBytes(bytes);
                onStep(ctx, auth.next(bytes));
            }
        } catch (RuntimeException e) {
            log.debug("client {}: malformed handshake: {}", ctx.channel().remoteAddress(), e.toString());
            refuse(ctx, ErrPacket.of(ErrorCode.ER_HANDSHAKE_ERROR));
        } finally {
            packet.release();
        }
    }

    private void onHandshakeResponse(ChannelHandlerContext ctx, ByteBuf payload) {
        if (SslRequest.isSslRequest(payload)) {
            if (services.tls() == null || secure) {
                refuse(ctx, ErrPacket.of(ErrorCode.ER_HANDSHAKE_ERROR));
                return;
            }
            // Clients send their TLS ClientHello right behind the SSLRequest, often in the same read,
            // so those bytes already sit in the frame decoder. Replacing the decoder with the
            // SslHandler makes Netty hand its leftover bytes to the SslHandler; a fresh decoder
            // then frames the decrypted stream.
            SslHandler ssl = services.tls().newHandler(ctx.alloc());
            ctx.pipeline().replace("frames", "tls", ssl);
            ctx.pipeline()
                    .addAfter(
                            "tls",
                            "frames",
                            new PacketFrameDecoder(services.settings().maxAllowedPacket()));
            secure = true;
            return;
        }
        response = HandshakeResponse41.read(payload);
        if (!response.capabilities().has(CLIENT_PROTOCOL_41)) {
            refuse(ctx, Errors.notSupported("clients without protocol 4.1"));
            return;
        }
        capabilities = new Capabilities(
                response.capabilities().flags() & offeredCapabilities(),
                response.capabilities().mariaDbFlags() & services.mariaDbCapabilities());
        String remote = remoteHost(ctx);
        auth = new ClientAuthentication(
                services.users(), services.rsaKeys(), services.rsaPublicKeyPem(), secure, remote);
        String plugin = capabilities.has(CLIENT_PLUGIN_AUTH) ? response.authPluginName() : null;
        onStep(ctx, auth.start(response.username(), plugin, response.authResponse(), seed));
    }

    private void onStep(ChannelHandlerContext ctx, ClientAuthentication.Step step) {
        if (step instanceof ClientAuthentication.Send send) {
            send(ctx, ++sequenceId, out -> out.writeBytes(send.payload()));
        } else if (step instanceof ClientAuthentication.Denied denied) {
            log.info("client {}: {}", remoteHost(ctx), denied.error().message());
            if (denied.error().code() == ErrorCode.ER_ACCESS_DENIED_ERROR.code()) {
                services.loginFailures().failed(remoteHost(ctx));
            }
            refuse(ctx, denied.error());
        } else if (step instanceof ClientAuthentication.Success success) {
            UserConfig user = success.user();
            if (!services.userConnections().takeFor(ctx.channel(), user)) {
                log.info(
                        "client {}: user {} holds its {} connections",
                        remoteHost(ctx),
                        user.name(),
                        user.maxConnections());
                refuse(
                        ctx,
                        ErrPacket.of(
                                ErrorCode.ER_USER_LIMIT_REACHED,
                                user.name(),
                                "max_user_connections",
                                user.maxConnections()));
                return;
            }
            if (success.fastAuthMarker()) {
                send(ctx, ++sequenceId, out -> out.writeByte(0x01).writeByte(0x03));
            }
            openSession(ctx, success.user());
        }
    }

    /** Hands the channel to a session, which checks the schema on a backend and sends the OK. */
    private void openSession(ChannelHandlerContext ctx, UserConfig user) {
        done = true;
        timeout.cancel(false);
        ctx.channel().config().setAutoRead(false);
        String schema = response.database() != null && capabilities.has(CLIENT_CONNECT_WITH_DB)
                ? response.database()
                : user.defaultSchema();
        if (opener != null) {
            ctx.pipeline().replace(this, "session", opener.open(user, capabilities, schema, sequenceId + 1));
            return;
        }
        FrontendSession session = new FrontendSession(
                services,
                user,
                capabilities,
                response.characterSet(),
                schema,
                seed,
                connectionId,
                sequenceId + 1,
                ctx.channel().eventLoop());
        log.debug("client {} logged in as {} (connection {})", remoteHost(ctx), user.name(), connectionId);
        ctx.pipeline().replace(this, "session", session);
    }

    private void send(ChannelHandlerContext ctx, int seq, Consumer<ByteBuf> payload) {
        ctx.writeAndFlush(PacketWriter.frame(ctx.alloc(), seq, 128, payload), ctx.voidPromise());
    }

    private void refuse(ChannelHandlerContext ctx, ErrPacket error) {
        done = true;
        services.metrics().error(error.code());
        if (timeout != null) {
            timeout.cancel(false);
        }
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(PacketWriter.frame(ctx.alloc(), ++sequenceId, 128, out -> error.write(out)))
                    .addListener(ChannelFutureListener.CLOSE);
        }
    }

    private static String remoteHost(ChannelHandlerContext ctx) {
        return ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getHostString() : "unknown";
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        done = true;
        if (timeout != null) {
            timeout.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof PacketTooLargeException) {
            refuse(ctx, ErrPacket.of(ErrorCode.ER_NET_PACKET_TOO_LARGE));
        } else {
            log.debug("client {}: {} during handshake", remoteHost(ctx), cause.toString());
            refuse(ctx, ErrPacket.of(ErrorCode.ER_HANDSHAKE_ERROR));
        }
    }
}
