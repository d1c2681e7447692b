package io.shardgate.router;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.Future;
import io.shardgate.protocol.frame.PacketFrameDecoder;
import io.shardgate.protocol.packet.HandshakeV10;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Collations;
import io.shardgate.router.backend.BackendConnection;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.backend.BackendLogin;
import io.shardgate.router.cache.RouterResultCache;
import io.shardgate.router.config.ConfigException;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.config.ServerSettings;
import io.shardgate.router.config.TlsConfig;
import io.shardgate.router.frontend.ConnectionLimitHandler;
import io.shardgate.router.frontend.FrontendHandshakeHandler;
import io.shardgate.router.frontend.FrontendServices;
import io.shardgate.router.frontend.UserDirectory;
import io.shardgate.router.net.Transport;
import io.shardgate.router.pool.PoolStats;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.routing.RoutingRules;
import io.shardgate.router.tls.FrontendTls;
import io.shardgate.router.tls.ServerRsaKeys;
import io.shardgate.sharding.rule.InvalidRulesException;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running router: the MySQL listener, its event loops and the shared services. Start one with
 * {@link #start}; {@link #close} stops accepting, closes every connection and the loops.
 */
public final class Shardgate implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Shardgate.class);
    /** Announced when the backend cannot be asked for its own version at startup. */
    static final String FALLBACK_VERSION = "8.0.40";

    private final EventLoopGroup acceptor;
    private final EventLoopGroup workers;
    private final Channel listener;
    private final String serverVersion;
    private final Hostgroups hostgroups;
    private final RoutingRules routing;
    private final RouterResultCache cache;
    private final PrometheusMeterRegistry metrics;

    private Shardgate(
            EventLoopGroup acceptor,
            EventLoopGroup workers,
            Channel listener,
            String serverVersion,
            Hostgroups hostgroups,
            RoutingRules routing,
            RouterResultCache cache,
            PrometheusMeterRegistry metrics) {
        this.acceptor = acceptor;
        this.workers = workers;
        this.listener = listener;
        this.serverVersion = serverVersion;
        this.hostgroups = hostgroups;
        this.routing = routing;
        this.cache = cache;
        this.metrics = metrics;
    }

    /** Counters of the default hostgroup's writer pool (connections open, idle, waiting...). */
    public PoolStats poolStats() {
        return hostgroups.get(routing.current().defaultHostgroup()).writer().stats();
    }

    /** Counters of every backend pool, in hostgroup order. */
    public List<PoolStats> allPoolStats() {
        return hostgroups.poolStats();
    }

    /** The sharding rules in force (hot reload publishes new versions here). */
    public RoutingRules routing() {
        return routing;
    }

    /**
     * The result cache: purge by table, schema, rule or all, and its counters (also served by the
     * admin HTTP endpoint as {@code /api/cache}).
     */
    public RouterResultCache resultCache() {
        return cache;
    }

    /** The registry the router's meters (result cache...) are registered in. */
    public PrometheusMeterRegistry metrics() {
        return metrics;
    }

    /** Starts a router for {@code config} with a meter registry of its own. */
    public static Shardgate start(RouterConfig config) {
        return start(config, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    /** Starts a router for {@code config}; returns once the MySQL port is listening. */
    public static Shardgate start(RouterConfig config, PrometheusMeterRegistry metrics) {
        ServerSettings settings = config.server();
        Path dataDir = Path.of(settings.dataDir());
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create data directory " + dataDir.toAbsolutePath(), e);
        }
        SslContext tls = frontendTls(settings.tls(), dataDir);
        ServerRsaKeys rsa = ServerRsaKeys.loadOrGenerate(dataDir);
        Transport transport = Transport.best();
        EventLoopGroup acceptor = transport.newGroup(1, "sg-accept");
        EventLoopGroup workers = transport.newGroup(settings.ioThreads(), "sg-io");
        try {
            BackendConnector connector =
                    new BackendConnector(transport.clientChannel(), settings.connectTimeoutMillis());
            HostgroupConfig hostgroup = config.defaultHostgroup();
            HandshakeV10 backend = probeBackend(connector, workers, hostgroup);
            String version = settings.serverVersion() != null
                    ? settings.serverVersion()
                    : (backend != null ? backend.serverVersion() : FALLBACK_VERSION) + "-Shardgate";
            int mariaDbCapabilities = relayableMariaDbCapabilities(backend);
            RoutingRules routing = new RoutingRules(rules(config));
            Hostgroups hostgroups = new Hostgroups(config.hostgroups(), connector);
            RouterResultCache cache = new RouterResultCache(config.cacheConfig(), metrics);
            FrontendServices services = new FrontendServices(
                    settings,
                    new UserDirectory(config.users()),
                    tls,
                    rsa.keyPair(),
                    rsa.publicKeyPem(),
                    version,
                    mariaDbCapabilities,
                    hostgroups,
                    routing,
                    new AtomicInteger(),
                    cache);
            ConnectionLimitHandler limit = new ConnectionLimitHandler(settings.maxConnections());
            ServerBootstrap bootstrap = new ServerBootstrap()
                    .group(acceptor, workers)
                    .channel(transport.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, 4096)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.SO_KEEPALIVE, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline()
                                    .addLast("limit", limit)
                                    .addLast("frames", new PacketFrameDecoder(settings.maxAllowedPacket()))
                                    .addLast("handshake", new FrontendHandshakeHandler(services));
                        }
                    });
            Channel listener = bootstrap
                    .bind(settings.bind(), settings.port())
                    .syncUninterruptibly()
                    .channel();
            log.info(
                    "Shardgate listening on {} for MySQL clients ({} transport, announcing version {}, backend {})",
                    listener.localAddress(),
                    transport.name(),
                    version,
                    hostgroup.writer());
            return new Shardgate(acceptor, workers, listener, version, hostgroups, routing, cache, metrics);
        } catch (RuntimeException e) {
            acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static RuleSnapshot rules(RouterConfig config) {
        try {
            return config.rules(1);
        } catch (InvalidRulesException e) {
            throw new ConfigException("invalid sharding rules:\n  - " + String.join("\n  - ", e.problems()));
        }
    }

    private static SslContext frontendTls(TlsConfig tls, Path dataDir) {
        return tls.enabled() ? FrontendTls.load(tls.toSettings(), dataDir).sslContext() : null;
    }

    /**
     * MariaDB extended capabilities to offer clients: only those whose packets the relay passes
     * through unchanged. Extended type info (JSON, UUID... in column definitions) is; progress
     * reports (ERR-shaped packets mid-result), metadata caching and bulk execution are not.
     */
    private static int relayableMariaDbCapabilities(HandshakeV10 backend) {
        if (backend == null || (backend.capabilities().flags() & CapabilityFlags.CLIENT_LONG_PASSWORD) != 0) {
            return 0; // MySQL, or unknown: plain MySQL protocol
        }
        return backend.capabilities().mariaDbFlags() & CapabilityFlags.MARIADB_CLIENT_EXTENDED_TYPE_INFO;
    }

    /**
     * Greets the default hostgroup's writer, so clients that adapt to the server (MariaDB vs
     * MySQL, 8.0 features) see the version and extensions they will actually talk to; null when
     * it cannot be reached at startup.
     */
    private static HandshakeV10 probeBackend(
            BackendConnector connector, EventLoopGroup loops, HostgroupConfig hostgroup) {
        BackendLogin login = new BackendLogin(
                hostgroup.user(),
                hostgroup.password(),
                null,
                Collations.UTF8MB4_GENERAL_CI,
                BackendConnector.BASE_CAPABILITIES,
                0);
        Future<BackendConnection> probe = connector.connect(loops.next(), hostgroup.writerAddress(), login);
        probe.awaitUninterruptibly();
        if (probe.isSuccess()) {
            BackendConnection connection = probe.getNow();
            connection.close();
            return connection.handshake();
        }
        log.warn(
                "could not reach hostgroup {} writer {} at startup ({}); announcing version {}",
                hostgroup.id(),
                hostgroup.writer(),
                probe.cause().getMessage(),
                FALLBACK_VERSION);
        return null;
    }

    /** The port MySQL clients connect to (useful when the config asked for port 0). */
    public int mysqlPort() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** The version string announced to clients. */
    public String serverVersion() {
        return serverVersion;
    }

    /** Blocks until {@link #close} is called from another thread. */
    public void awaitClose() {
        listener.closeFuture().syncUninterruptibly();
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        hostgroups.close();
        cache.close();
        Future<?> a = acceptor.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        Future<?> w = workers.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        a.syncUninterruptibly();
        w.syncUninterruptibly();
    }
}
