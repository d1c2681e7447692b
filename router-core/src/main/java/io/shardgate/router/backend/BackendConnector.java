package io.shardgate.router.backend;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.shardgate.protocol.frame.PacketFrameDecoder;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.tls.BackendTlsContexts;
import io.shardgate.router.tls.KeyMaterialException;
import java.util.concurrent.TimeUnit;

/**
 * Opens authenticated backend connections on a caller-chosen event loop, so a session's client
 * and backend channels share one thread and relaying needs no hand-off.
 */
public final class BackendConnector {
    /** Capabilities the router always asks a backend for; result-format flags come from the client. */
    public static final int BASE_CAPABILITIES = CapabilityFlags.CLIENT_LONG_PASSWORD
            | CapabilityFlags.CLIENT_LONG_FLAG
            | CapabilityFlags.CLIENT_PROTOCOL_41
            | CapabilityFlags.CLIENT_TRANSACTIONS
            | CapabilityFlags.CLIENT_SECURE_CONNECTION
            | CapabilityFlags.CLIENT_PLUGIN_AUTH
            | CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | CapabilityFlags.CLIENT_CONNECT_ATTRS
            | CapabilityFlags.CLIENT_CONNECT_WITH_DB;

    /** Flags that change what a server sends; a backend connection must agree with its client on them. */
    public static final int RESULT_FORMAT = CapabilityFlags.CLIENT_FOUND_ROWS
            | CapabilityFlags.CLIENT_MULTI_STATEMENTS
            | CapabilityFlags.CLIENT_MULTI_RESULTS
            | CapabilityFlags.CLIENT_PS_MULTI_RESULTS
            | CapabilityFlags.CLIENT_LOCAL_FILES
            | CapabilityFlags.CLIENT_SESSION_TRACK
            | CapabilityFlags.CLIENT_DEPRECATE_EOF
            | CapabilityFlags.CLIENT_IGNORE_SPACE
            | CapabilityFlags.CLIENT_INTERACTIVE;

    /** Backend responses are trusted; this only bounds a joined login packet. */
    private static final int MAX_LOGIN_PACKET = 16 * 1024 * 1024;

    private final Class<? extends SocketChannel> channelClass;
    private final int connectTimeoutMillis;
    private final int queryTimeoutMillis;
    private final BackendTlsContexts tlsContexts = new BackendTlsContexts();

    /** A connector whose connections have no query timeout. */
    public BackendConnector(Class<? extends SocketChannel> channelClass, int connectTimeoutMillis) {
        this(channelClass, connectTimeoutMillis, 0);
    }

    /**
     * @param queryTimeoutMillis longest a backend may stay silent while a response is outstanding
     *     ({@code server.query_timeout_millis}); 0 for no limit
     */
    public BackendConnector(
            Class<? extends SocketChannel> channelClass, int connectTimeoutMillis, int queryTimeoutMillis) {
        this.channelClass = channelClass;
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.queryTimeoutMillis = queryTimeoutMillis;
    }

    /** How long a backend may stay silent while a response is outstanding; 0 for no limit. */
    public int queryTimeoutMillis() {
        return queryTimeoutMillis;
    }

    /**
     * Connects and logs in. The future fails with a {@link BackendException} carrying the MySQL
     * error to show a client (the server's own ERR, or 2003/2013-style network errors).
     */
    public Future<BackendConnection> connect(EventLoop loop, BackendAddress address, BackendLogin login) {
        Promise<BackendConnection> promise = loop.newPromise();
        String label = address.toString();
        SslContext sslContext = null;
        if (login.tls().enabled()) {
            try {
                sslContext = tlsContexts.context(login.tls());
            } catch (KeyMaterialException e) {
                return promise.setFailure(new BackendException(new ErrPacket(
                        ErrorCode.CR_SSL_CONNECTION_ERROR.code(),
                        ErrorCode.CR_SSL_CONNECTION_ERROR.sqlState(),
                        ErrorCode.CR_SSL_CONNECTION_ERROR.format(
                                "backend " + label + " (" + login.tls().describe() + "): " + e.getMessage()))));
            }
        }
        SslContext tls = sslContext;
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channel(channelClass)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(BackendConnection.FRAMES, new PacketFrameDecoder(MAX_LOGIN_PACKET))
                                .addLast(new BackendHandshakeHandler(login, address, tls, promise));
                    }
                });
        ChannelFuture connect = bootstrap.connect(address.host(), address.port());
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                promise.tryFailure(new BackendException(new ErrPacket(
                        2003,
                        "HY000",
                        "Can't connect to backend " + label + ": " + f.cause().getMessage())));
            }
        });
        // login must finish in time too, not only the TCP connect
        var timeout = loop.schedule(
                () -> {
                    if (promise.tryFailure(new BackendException(new ErrPacket(
                            ErrorCode.ER_HANDSHAKE_ERROR.code(),
                            "08S01",
                            "backend " + label + " did not complete login within " + connectTimeoutMillis + " ms")))) {
                        connect.channel().close();
                    }
                },
                connectTimeoutMillis,
                TimeUnit.MILLISECONDS);
        promise.addListener(f -> timeout.cancel(false));
        return promise;
    }
}
