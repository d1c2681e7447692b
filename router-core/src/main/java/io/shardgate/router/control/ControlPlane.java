package io.shardgate.router.control;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.shardgate.admin.http.AdminHttpServer;
import io.shardgate.admin.http.CacheControl;
import io.shardgate.admin.http.MoveControl;
import io.shardgate.admin.http.ReadinessCheck;
import io.shardgate.admin.http.TransactionControl;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.admin.store.InvalidConfigException;
import io.shardgate.admin.store.LiveRouter;
import io.shardgate.admin.store.RuleStore;
import io.shardgate.admin.store.RuleStoreException;
import io.shardgate.admin.store.ZkRuleStore;
import io.shardgate.admin.zookeeper.EmbeddedZooKeeper;
import io.shardgate.router.config.ConfigException;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.config.ZooKeeperSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's side of the control plane: the ZooKeeper it keeps its configuration in (an
 * ensemble, or a single node embedded under the data directory), the rule store watching the
 * cluster's root, this router's live registration and the HTTP endpoint.
 *
 * <p>At start the YAML's cluster sections seed the root if it is empty; then the cluster's current
 * version is what the router runs. When ZooKeeper does not answer within {@code
 * zookeeper.startup_timeout_millis} the router starts on its YAML and catches up once it does
 * (seeding the root then if it is still empty: {@link LateSeeder}).
 * Close order matters: the HTTP endpoint, the store (its registration recipe misbehaves on a
 * closed client), the Curator client, the embedded server.
 */
public final class ControlPlane implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControlPlane.class);

    private final EmbeddedZooKeeper embedded;
    private final CuratorFramework client;
    private final ZkRuleStore store;
    private final ConfigVersion firstVersion;
    private final LateSeeder lateSeeder;
    /** Runs ZooKeeper work that a connection event triggers, off Curator's event thread. */
    private final ExecutorService background = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sg-control-plane");
        t.setDaemon(true);
        return t;
    });

    /** Router ids registered by a retry; touched on {@link #background} only. */
    private final Set<String> registered = new HashSet<>();

    private AdminHttpServer http;

    private ControlPlane(
            EmbeddedZooKeeper embedded,
            CuratorFramework client,
            ZkRuleStore store,
            ConfigVersion firstVersion,
            LateSeeder lateSeeder) {
        this.embedded = embedded;
        this.client = client;
        this.store = store;
        this.firstVersion = firstVersion;
        this.lateSeeder = lateSeeder;
    }

    /**
     * Connects to (or starts) ZooKeeper, seeds the cluster from {@code local} if its root is empty
     * and waits for the cluster's current version.
     */
    public static ControlPlane start(RouterConfig local, Path dataDir, PrometheusMeterRegistry metrics) {
        ZooKeeperSettings settings = local.zookeeper();
        EmbeddedZooKeeper embedded = null;
        CuratorFramework client = null;
        ZkRuleStore store = null;
        try {
            String connect = settings.connect();
            if (settings.embedded()) {
                embedded = new EmbeddedZooKeeper(dataDir.resolve("zookeeper"), settings.embeddedPort());
                embedded.start();
                connect = embedded.connectString();
            }
            client = CuratorFrameworkFactory.builder()
                    .connectString(connect)
                    .sessionTimeoutMs(settings.sessionTimeoutMillis())
                    .connectionTimeoutMs(Math.min(settings.sessionTimeoutMillis(), 5_000))
                    // operations give up within seconds (an admin request then answers 503); the
                    // connection itself is re-established by ZooKeeper's client for as long as it takes
                    .retryPolicy(new ExponentialBackoffRetry(200, 3, 2_000))
                    .build();
            client.start();
            store = new ZkRuleStore(
                    client,
                    settings.root(),
                    documents -> ClusterDocuments.read(local, documents).problems(),
                    metrics);
            store.start();
            ConfigVersion first = firstVersion(local, client, store);
            LateSeeder seeder = null;
            if (first == null) {
                seeder = new LateSeeder(client, store, local);
                seeder.start();
            }
            return new ControlPlane(embedded, client, store, first, seeder);
        } catch (IOException e) {
            closeAll(null, store, client, embedded);
            throw new UncheckedIOException("cannot start the embedded ZooKeeper: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeAll(null, store, client, embedded);
            throw e;
        }
    }

    private static ConfigVersion firstVersion(RouterConfig local, CuratorFramework client, ZkRuleStore store) {
        ZooKeeperSettings settings = local.zookeeper();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.startupTimeoutMillis());
        try {
            if (!client.blockUntilConnected(settings.startupTimeoutMillis(), TimeUnit.MILLISECONDS)) {
                log.warn(
                        "ZooKeeper {} not reachable within {} ms: serving the rules of the YAML file until it is",
                        settings.embedded() ? "(embedded)" : settings.connect(),
                        settings.startupTimeoutMillis());
                return null;
            }
            boolean seeded = false;
            try {
                seeded = store.seedIfEmpty(ClusterDocuments.of(local));
                if (seeded) {
                    log.info("{} was empty: seeded it from the YAML file", settings.root());
                } else {
                    log.info(
                            "{} holds the cluster's configuration (the YAML file only seeds an empty root)",
                            settings.root());
                }
            } catch (InvalidConfigException e) {
                // the file passed the same checks when it was read: only the store's own limits get here
                throw new ConfigException("the YAML file's cluster sections cannot be stored in ZooKeeper "
                        + settings.root() + ":\n  - " + String.join("\n  - ", e.problems()));
            } catch (RuleStoreException e) {
                log.warn("seeding {} failed ({}); waiting for its version", settings.root(), e.getMessage());
            }
            long left = Math.max(0, deadline - System.nanoTime());
            Optional<ConfigVersion> first = store.awaitVersion(1, Duration.ofNanos(left));
            if (first.isPresent() && seeded) {
                return first.get();
            }
            if (first.isPresent()) {
                return new StartupPublisher(local, store)
                        .reconcile(first.get(), Duration.ofMillis(Math.max(1_000, settings.startupTimeoutMillis())));
            }
            log.warn(
                    "no valid configuration version in {} within {} ms ({}): serving the rules of the YAML file",
                    settings.root(),
                    settings.startupTimeoutMillis(),
                    store.status()
                            .lastRejection()
                            .map(r -> "refused: " + r.problems())
                            .orElse("none yet"));
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The cluster's version at start, or empty when the router starts on its YAML. */
    public Optional<ConfigVersion> firstVersion() {
        return Optional.ofNullable(firstVersion);
    }

    public ZkRuleStore store() {
        return store;
    }

    /** The store as admin interfaces see it: plaintext user passwords hashed, backend passwords hidden. */
    public RuleStore publisher() {
        return new AdminRuleStore(store);
    }

    /** Applies every version accepted from now on (and any accepted since start) to {@code live}. */
    public void follow(LiveConfiguration live) {
        store.addListener(live);
        store.current().ifPresent(live::onAccepted);
    }

    /**
     * Registers this router under the cluster's {@code routers} node (in the background if
     * ZooKeeper is slow; if it is unreachable, again each time the session connects until it works).
     */
    public void register(String id, String host, Map<String, Integer> ports) {
        LiveRouter self = new LiveRouter(id, host, ports, 0);
        // without a connection, trying now would hold up the router's start for Curator's retries
        if (client.getZookeeperClient().isConnected() && tryRegister(self)) {
            return;
        }
        ConnectionStateListener retry = new ConnectionStateListener() {
            @Override
            public void stateChanged(CuratorFramework c, ConnectionState state) {
                if (state.isConnected() && !background.isShutdown()) {
                    background.execute(() -> retryRegister(self, this));
                }
            }
        };
        client.getConnectionStateListenable().addListener(retry);
        if (client.getZookeeperClient().isConnected()) {
            background.execute(() -> retryRegister(self, retry)); // connected before the listener was added
        }
    }

    /** Runs on {@link #background} only, so attempts never overlap. */
    private void retryRegister(LiveRouter self, ConnectionStateListener retry) {
        if (registered.contains(self.id())) {
            return;
        }
        if (tryRegister(self)) {
            registered.add(self.id());
            client.getConnectionStateListenable().removeListener(retry);
        }
    }

    /** False when ZooKeeper could not be asked (retried at the next connection). */
    private boolean tryRegister(LiveRouter self) {
        try {
            if (!store.register(self, Duration.ofSeconds(5))) {
                log.warn("router registration {} not confirmed yet; it completes when ZooKeeper answers", self.id());
            }
            return true;
        } catch (RuleStoreException e) {
            log.warn("router registration {} failed ({}); retrying when ZooKeeper is back", self.id(), e.getMessage());
            return false;
        } catch (IllegalStateException e) {
            log.warn("router registration {} failed: {}", self.id(), e.getMessage());
            return true;
        }
    }

    /** Starts the HTTP endpoint ({@code /health}, {@code /ready}, {@code /metrics}, {@code /api/...}). */
    public synchronized int startHttp(
            InetSocketAddress address,
            PrometheusMeterRegistry metrics,
            CacheControl cache,
            ReadinessCheck readiness,
            TransactionControl transactions,
            MoveControl moves) {
        AdminHttpServer server =
                new AdminHttpServer(address, new AdminRuleStore(store), metrics, cache, readiness, transactions, moves);
        try {
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen for HTTP on " + address + ": " + e.getMessage(), e);
        }
        http = server;
        return server.port();
    }

    /** The ZooKeeper client of the control plane (two-phase commit takes its router epochs there). */
    public CuratorFramework curator() {
        return client;
    }

    /** The ZooKeeper connect string in use (the embedded server's when there is one). */
    public String connectString() {
        return embedded != null
                ? embedded.connectString()
                : client.getZookeeperClient().getCurrentConnectionString();
    }

    @Override
    public synchronized void close() {
        if (lateSeeder != null) {
            lateSeeder.close();
        }
        background.shutdownNow();
        closeAll(http, store, client, embedded);
        http = null;
    }

    private static void closeAll(
            AdminHttpServer http, ZkRuleStore store, CuratorFramework client, EmbeddedZooKeeper embedded) {
        if (http != null) {
            http.close();
        }
        if (store != null) {
            store.close();
        }
        if (client != null) {
            client.close();
        }
        if (embedded != null) {
            embedded.close();
        }
    }
}
