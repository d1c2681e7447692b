package io.shardgate.router;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.NettyRuntime;
import io.netty.util.concurrent.Future;
import io.shardgate.admin.http.ReadinessCheck;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.admin.store.ZkRuleStore;
import io.shardgate.protocol.packet.HandshakeV10;
import io.shardgate.router.adminsql.AdminEndpoint;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.columns.SchemaTracker;
import io.shardgate.router.config.ConfigException;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.config.ServerSettings;
import io.shardgate.router.config.TlsConfig;
import io.shardgate.router.control.ClusterDocuments;
import io.shardgate.router.control.ControlPlane;
import io.shardgate.router.control.LiveConfiguration;
import io.shardgate.router.frontend.FrontendServices;
import io.shardgate.router.frontend.SessionBuffers;
import io.shardgate.router.frontend.SessionInfo;
import io.shardgate.router.frontend.SessionRegistry;
import io.shardgate.router.health.DefaultHostgroupReadiness;
import io.shardgate.router.health.ServerMonitor;
import io.shardgate.router.login.ConnectionLimitHandler;
import io.shardgate.router.login.LoginFailures;
import io.shardgate.router.login.UserConnections;
import io.shardgate.router.login.UserDirectory;
import io.shardgate.router.metrics.RouterMetrics;
import io.shardgate.router.move.MoveHolds;
import io.shardgate.router.move.MoveLog;
import io.shardgate.router.move.MoveMetrics;
import io.shardgate.router.move.MoveRunner;
import io.shardgate.router.move.MoveWatch;
import io.shardgate.router.net.Transport;
import io.shardgate.router.pool.PoolStats;
import io.shardgate.router.resultcache.RouterResultCache;
import io.shardgate.router.routing.BackendServers;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.routing.RoutingRules;
import io.shardgate.router.server.AdminServices;
import io.shardgate.router.server.BackendProbe;
import io.shardgate.router.server.MoveContexts;
import io.shardgate.router.server.MysqlListener;
import io.shardgate.router.server.RouterId;
import io.shardgate.router.server.TwoPhaseStartup;
import io.shardgate.router.tls.FrontendTls;
import io.shardgate.router.tls.ServerRsaKeys;
import io.shardgate.router.twophase.DecisionTable;
import io.shardgate.router.twophase.Resolver;
import io.shardgate.router.twophase.RouterEpochs;
import io.shardgate.router.twophase.TwoPhase;
import io.shardgate.router.twophase.TwoPhaseMetrics;
import io.shardgate.sharding.key.SnowflakeIds;
import io.shardgate.sharding.rule.InvalidRulesException;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

    private final EventLoopGroup acceptor;
    private final EventLoopGroup workers;
    private final Channel listener;
    private final String serverVersion;
    private final Hostgroups hostgroups;
    private final RoutingRules routing;
    private final ControlPlane control;
    private final LiveConfiguration live;
    private final RouterMetrics metrics;
    private final int httpPort;
    private final AdminEndpoint admin; // null when the admin section has no users
    private final ServerMonitor monitor;
    private final SchemaTracker schemaTracker;
    private final SessionRegistry sessions;
    private final RouterResultCache cache;
    private final Resolver resolver;
    private final RouterEpochs twoPhaseLog;
    private final MoveWatch moveWatch;
    private final MoveRunner moveRunner;

    private Shardgate(
            EventLoopGroup acceptor,
            EventLoopGroup workers,
            Channel listener,
            String serverVersion,
            Hostgroups hostgroups,
            RoutingRules routing,
            ControlPlane control,
            LiveConfiguration live,
            RouterMetrics metrics,
            int httpPort,
            AdminEndpoint admin,
            ServerMonitor monitor,
            SchemaTracker schemaTracker,
            SessionRegistry sessions,
            RouterResultCache cache,
            Resolver resolver,
            RouterEpochs twoPhaseLog,
            MoveWatch moveWatch,
            MoveRunner moveRunner) {
        this.resolver = resolver;
        this.moveWatch = moveWatch;
        this.moveRunner = moveRunner;
        this.twoPhaseLog = twoPhaseLog;
        this.acceptor = acceptor;
        this.workers = workers;
        this.listener = listener;
        this.serverVersion = serverVersion;
        this.hostgroups = hostgroups;
        this.routing = routing;
        this.control = control;
        this.live = live;
        this.metrics = metrics;
        this.httpPort = httpPort;
        this.admin = admin;
        this.monitor = monitor;
        this.schemaTracker = schemaTracker;
        this.sessions = sessions;
        this.cache = cache;
    }

    /** Every backend server: role, status, health, pool counters; {@code setStatus} changes one. */
    public BackendServers servers() {
        return new BackendServers(hostgroups);
    }

    /** The hostgroups new statements use (and, in {@code draining()}, replaced ones still finishing). */
    public Hostgroups hostgroups() {
        return hostgroups;
    }

    /** The client sessions logged in now, with whether and why each holds backend connections. */
    public List<SessionInfo> sessions() {
        return sessions.snapshot();
    }

    /** What each client session buffers for its client, and whether backpressure is on. */
    public List<SessionBuffers> sessionBuffers() {
        return sessions.buffers();
    }

    /** Client sessions logged in now (the other side of the client/backend connection ratio). */
    public int clientConnections() {
        return sessions.count();
    }

    /** Counters of the default hostgroup's writer pool (connections open, idle, waiting...). */
    public PoolStats poolStats() {
        return hostgroups
                .get(routing.current().defaultHostgroup())
                .writer()
                .pool()
                .stats();
    }

    /** Counters of every backend pool, in hostgroup order. */
    public List<PoolStats> allPoolStats() {
        return hostgroups.poolStats();
    }

    /** The sharding rules in force (hot reload publishes new versions here). */
    public RoutingRules routing() {
        return routing;
    }

    /** The configuration version in force and what it holds. */
    public LiveConfiguration configuration() {
        return live;
    }

    /** The cluster's configuration store in ZooKeeper, as this router sees it. */
    public ZkRuleStore ruleStore() {
        return control.store();
    }

    /** The ZooKeeper this router keeps its configuration in (the embedded one's address, if so). */
    public String zooKeeperConnectString() {
        return control.connectString();
    }

    /**
     * The result cache; {@code control()} purges by table, schema, rule or all and gives its counters (also served by the
     * admin HTTP endpoint as {@code /api/cache}).
     */
    public RouterResultCache resultCache() {
        return cache;
    }

    /** The two-phase commit resolver: unresolved transactions, resolution by hand. */
    public Resolver twoPhaseResolver() {
        return resolver;
    }

    /** The meters {@code /metrics} renders. */
    public RouterMetrics metrics() {
        return metrics;
    }

    /** The port of the SQL admin endpoint; -1 when it is off (no {@code admin.users}). */
    public int adminPort() {
        return admin == null ? -1 : admin.port();
    }

    /** The port of the HTTP endpoint (useful when the config asked for port 0). */
    public int httpPort() {
        return httpPort;
    }

    /** Starts a router for {@code config}; returns once the MySQL port is listening. */
    public static Shardgate start(RouterConfig config) {
        ServerSettings settings = config.server();
        Path dataDir = Path.of(settings.dataDir());
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create data directory " + dataDir.toAbsolutePath(), e);
        }
        SslContext tls = frontendTls(settings.tls(), dataDir);
        ServerRsaKeys rsa = ServerRsaKeys.loadOrGenerate(dataDir);
        RouterMetrics metrics = new RouterMetrics();
        ControlPlane control = ControlPlane.start(config, dataDir, metrics.registry());
        ConfigVersion first = control.firstVersion().orElse(null);
        RouterConfig effective = first == null ? null : clusterConfig(config, first);
        if (effective == null) {
            first = null;
            effective = config;
        }
        Transport transport = Transport.select(settings.transport());
        EventLoopGroup acceptor = transport.newGroup(1, "sg-accept");
        // one loop per core (Netty's own default is two): a statement's client and backend sockets
        // share a loop, so more loops than cores only adds context switches and splits each pool
        // into smaller per-loop partitions (connection scaling at 4096 clients on 2 cores: router
        // CPU per query 49.7 -> 35 us with 2 loops instead of 4)
        int loops = settings.ioThreads() > 0 ? settings.ioThreads() : NettyRuntime.availableProcessors();
        EventLoopGroup workers = transport.newGroup(loops, "sg-io");
        Hostgroups hostgroups = null;
        Resolver resolver = null;
        MoveWatch moveWatch = null;
        MoveRunner moveRunner = null;
        try {
            BackendConnector connector = new BackendConnector(
                    transport.clientChannel(), settings.connectTimeoutMillis(), settings.queryTimeoutMillis());
            HostgroupConfig hostgroup = effective.defaultHostgroup();
            HandshakeV10 backend = BackendProbe.probe(connector, workers, hostgroup);
            String announced = BackendProbe.announcedVersion(settings.serverVersion(), backend);
            int mariaDbCapabilities = BackendProbe.relayableMariaDbCapabilities(backend);
            long version = first == null ? 0 : first.number();
            RoutingRules routing = new RoutingRules(rules(effective, version));
            hostgroups = new Hostgroups(effective.hostgroups(), connector);
            metrics.pools(hostgroups);
            UserDirectory users = new UserDirectory(effective.users());
            RouterResultCache cache = new RouterResultCache(effective.cacheConfig(), metrics.registry());
            LiveConfiguration live =
                    new LiveConfiguration(config, version, effective, routing, users, hostgroups, cache, metrics);
            control.follow(live);
            SessionRegistry sessions = new SessionRegistry();
            SchemaTracker schemaTracker = SchemaTracker.start(
                    routing,
                    hostgroups,
                    connector,
                    workers,
                    settings.schemaTrackingIntervalMillis(),
                    metrics.registry());
            TwoPhase twoPhase = new TwoPhase(
                    settings.nodeId(),
                    new RouterEpochs(control.curator(), config.zookeeper().root()),
                    new DecisionTable(),
                    new TwoPhaseMetrics(metrics.registry()));
            TwoPhaseStartup.takeEpoch(twoPhase.epochs(), config.zookeeper().startupTimeoutMillis());
            MoveHolds moves = new MoveHolds(MoveHolds.HOLD_TIMEOUT_MILLIS);
            FrontendServices services = new FrontendServices(
                    settings,
                    users,
                    tls,
                    rsa.keyPair(),
                    rsa.publicKeyPem(),
                    announced,
                    mariaDbCapabilities,
                    hostgroups,
                    routing,
                    new AtomicInteger(),
                    metrics,
                    sessions,
                    new SnowflakeIds(settings.nodeId()),
                    cache,
                    new LoginFailures(
                            settings.maxLoginFailures(), Duration.ofMillis(settings.loginFailureWindowMillis())),
                    new UserConnections(),
                    schemaTracker,
                    twoPhase,
                    moves);
            resolver = TwoPhaseStartup.startResolver(
                    twoPhase,
                    hostgroups,
                    connector,
                    workers,
                    control.curator(),
                    config.zookeeper().root());
            ConnectionLimitHandler limit = new ConnectionLimitHandler(settings.maxConnections());
            metrics.clientConnections(limit::open);
            Channel listener = MysqlListener.bind(transport, acceptor, workers, settings, limit, services);
            log.info(
                    "Shardgate listening on {} for MySQL clients ({} transport, announcing version {}, backend {})",
                    listener.localAddress(),
                    transport.name(),
                    announced,
                    hostgroup.writer());
            int mysqlPort = ((InetSocketAddress) listener.localAddress()).getPort();
            String id = RouterId.of(settings.bind(), mysqlPort);
            Hostgroups declared = hostgroups;
            moveRunner = new MoveRunner(
                    MoveContexts.of(config, control, declared, new MoveMetrics(metrics.registry(), moves)),
                    hg -> declared.get(hg) != null,
                    control.curator(),
                    config.zookeeper().root(),
                    id);
            int httpPort;
            try {
                if (settings.runMoves()) {
                    moveRunner.start();
                }
                httpPort = control.startHttp(
                        new InetSocketAddress(settings.bind(), settings.httpPort()),
                        metrics.registry(),
                        cache.control(),
                        drainingOr(
                                sessions,
                                settings.readyRequiresOnlineBackends()
                                        ? new DefaultHostgroupReadiness(routing, hostgroups)
                                        : ReadinessCheck.NONE),
                        resolver.control(),
                        moveRunner);
            } catch (RuntimeException e) {
                listener.close().syncUninterruptibly();
                throw e;
            } catch (Exception e) {
                listener.close().syncUninterruptibly();
                throw new IllegalStateException("the mover's leader latch did not start: " + e, e);
            }
            AdminEndpoint admin = null;
            if (config.admin().sqlEndpointEnabled()) {
                try {
                    admin = AdminEndpoint.start(
                            new InetSocketAddress(settings.bind(), settings.adminPort()),
                            acceptor,
                            workers,
                            transport.serverChannel(),
                            AdminServices.of(services, config),
                            control.publisher(),
                            control.publisher(),
                            live,
                            hostgroups,
                            limit::open,
                            sessions::snapshot,
                            metrics.digests(),
                            cache.control(),
                            resolver,
                            moveRunner,
                            moves::waitingCount);
                } catch (RuntimeException e) {
                    listener.close().syncUninterruptibly();
                    throw e;
                }
            } else {
                log.info("SQL admin endpoint off: the admin section names no users");
            }
            Map<String, Integer> ports = new java.util.TreeMap<>(Map.of("mysql", mysqlPort, "http", httpPort));
            if (admin != null) {
                ports.put("admin", admin.port());
            }
            control.register(id, settings.bind(), ports);
            moveWatch = new MoveWatch(
                    new MoveLog(control.curator(), config.zookeeper().root()),
                    moves,
                    id,
                    sessions::afterCutoverBarrier,
                    live::version);
            moveWatch.start();
            ServerMonitor monitor = ServerMonitor.start(hostgroups, connector, workers);
            return new Shardgate(
                    acceptor,
                    workers,
                    listener,
                    announced,
                    hostgroups,
                    routing,
                    control,
                    live,
                    metrics,
                    httpPort,
                    admin,
                    monitor,
                    schemaTracker,
                    sessions,
                    cache,
                    resolver,
                    twoPhase.epochs(),
                    moveWatch,
                    moveRunner);
        } catch (RuntimeException e) {
            if (moveRunner != null) {
                moveRunner.close();
            }
            if (moveWatch != null) {
                moveWatch.close();
            }
            if (resolver != null) {
                resolver.close();
            }
            if (hostgroups != null) {
                hostgroups.close();
            }
            acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            control.close();
            throw e;
        }
    }

    /**
     * The cluster's version as this router runs it, or null (the YAML serves) in the unexpected case
     * that the version the store validated with the same reader does not read.
     */
    private static RouterConfig clusterConfig(RouterConfig local, ConfigVersion version) {
        ClusterDocuments.Reading reading = ClusterDocuments.read(local, version.documents());
        if (reading.config() == null) {
            log.error(
                    "config version {} does not read ({}); serving the YAML file",
                    version.number(),
                    reading.problems());
        }
        return reading.config();
    }

    private static RuleSnapshot rules(RouterConfig config, long version) {
        try {
            return config.rules(version);
        } catch (InvalidRulesException e) {
            throw new ConfigException("invalid sharding rules:\n  - " + String.join("\n  - ", e.problems()));
        }
    }

    private static SslContext frontendTls(TlsConfig tls, Path dataDir) {
        return tls.enabled() ? FrontendTls.load(tls.toSettings(), dataDir).sslContext() : null;
    }

    /** Whether this router is the cluster's mover now (it runs the moves: docs/moves.md). */
    public boolean runsMoves() {
        return moveRunner.leading();
    }

    /** The moves this router follows and the statements waiting for a cutover. */
    public MoveHolds moveHolds() {
        return moveWatch.holds();
    }

    /** The port MySQL clients connect to (useful when the config asked for port 0). */
    public int mysqlPort() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** The version string announced to clients. */
    public String serverVersion() {
        return serverVersion;
    }

    /** Not ready from the first moment of a drain (the load balancer stops sending clients), else {@code check}. */
    private static ReadinessCheck drainingOr(SessionRegistry sessions, ReadinessCheck check) {
        return () -> sessions.draining()
                ? java.util.Optional.of("draining: the router is shutting down")
                : check.notReadyBecause();
    }

    /**
     * Graceful drain, as on SIGTERM: {@code GET /ready} answers 503, the MySQL port stops
     * accepting, idle sessions are closed and the others between statements once outside a
     * transaction; after {@code grace}, every session still open is closed (its backends roll back
     * what it had open). Returns when no session is left or the grace is over; {@link #close}
     * stops the rest.
     */
    public void drain(Duration grace) {
        sessions.drain();
        listener.close().syncUninterruptibly();
        log.info(
                "draining: MySQL port closed, /ready answers 503; {} session(s) open, up to {} ms for transactions",
                sessions.count(),
                grace.toMillis());
        long deadline = System.nanoTime() + grace.toNanos();
        try {
            while (sessions.count() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int left = sessions.count();
        if (left > 0) {
            log.warn("drain: grace of {} ms over, closing {} session(s) still open", grace.toMillis(), left);
            sessions.endGrace();
            long closing = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            try {
                while (sessions.count() > 0 && System.nanoTime() < closing) {
                    Thread.sleep(20);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            log.info("drain: every session ended");
        }
    }

    /** Blocks until {@link #close} is called from another thread. */
    public void awaitClose() {
        listener.closeFuture().syncUninterruptibly();
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        monitor.close();
        moveRunner.close();
        moveWatch.close();
        resolver.close();
        twoPhaseLog.close();
        schemaTracker.close();
        if (admin != null) {
            admin.close();
        }
        control.close();
        hostgroups.close();
        cache.close();
        Future<?> a = acceptor.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        Future<?> w = workers.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        a.syncUninterruptibly();
        w.syncUninterruptibly();
    }
}
