package io.shardgate.admin.store;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's configuration kept in ZooKeeper: versioned documents, published atomically, watched
 * by every router.
 *
 * <p><b>Design.</b> A version is a set of documents under {@code versions/N} plus the {@code
 * version} node naming the current N (layout in {@link ZkLayout}). A publish is one ZooKeeper
 * multi-op that creates all documents of N+1 and sets {@code version} with the ZooKeeper data
 * version it read (compare-and-set): of two concurrent publishers exactly one succeeds, the other
 * gets a {@link ConfigConflictException} and nothing of its attempt remains. Seeding creates {@code
 * version} in the same kind of multi-op, so of two racing seeders exactly one writes. Readers
 * therefore never see a half-written version.
 *
 * <p>Every store, publisher or not, watches {@code version}. On a change it reads the documents,
 * checks them (section names, UTF-8, total size, then the injected {@link ConfigValidator}) and
 * either accepts the version (listeners, {@link #current()}, the router's registration) or refuses it
 * with the reasons (log, {@code shardgate.config.rejected}, {@link #status()}, listeners) and keeps
 * the previous one. Publishers run the same checks before writing; the watcher's checks catch what
 * was written behind the store's back.
 *
 * <p><b>Outages.</b> Nothing here needs ZooKeeper to keep serving: the accepted version is held in
 * memory. Curator reconnects with its retry policy; on (re)connection the store re-reads {@code
 * version} and catches up. A read that fails is retried with backoff (0.5 s doubling to 30 s), so a
 * lost watch cannot leave a router behind for good.
 *
 * <p><b>Threading.</b> Watch events and connection changes only schedule a refresh on the store's
 * single thread, which reads ZooKeeper, validates and notifies listeners, one version at a time, in
 * increasing order. {@link #publish} and {@link #seedIfEmpty} run on the caller's thread. Accepted
 * versions never decrease.
 *
 * <p>The store does not own the {@link CuratorFramework}: the caller starts it before {@link
 * #start()} and closes it after {@link #close()}.
 */
public final class ZkRuleStore implements RuleStore, AutoCloseable {
    /**
     * Upper bound on the bytes of one version. ZooKeeper refuses any request over jute.maxbuffer (1
     * MiB by default), and a version is written in a single request.
     */
    public static final int MAX_VERSION_BYTES = 900 * 1024;

    /** Versions kept in ZooKeeper for inspection and rollback by hand; older ones are deleted. */
    static final int RETAINED_VERSIONS = 20;

    private static final Logger log = LoggerFactory.getLogger(ZkRuleStore.class);
    private static final long MAX_RETRY_MILLIS = 30_000;

    private final CuratorFramework client;
    private final ZkLayout layout;
    private final ConfigChecks checks;
    private final VersionReader reader;
    private final VersionWriter writer;
    private final RouterRegistry routers;
    private final ScheduledExecutorService thread;
    private final List<ConfigListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicReference<ConfigVersion> current = new AtomicReference<>();
    private final AtomicReference<ConfigRejection> lastRejection = new AtomicReference<>();
    private final AtomicBoolean refreshPending = new AtomicBoolean();
    private final AtomicBoolean retryPending = new AtomicBoolean();
    private final Object versionChanged = new Object();
    private ConfigVersion delivered; // guarded by versionChanged: the newest version all listeners have seen
    private final Watcher versionWatcher = event -> scheduleRefresh();
    private final ConnectionStateListener connectionListener = (c, state) -> onConnectionState(state);
    private final Counter accepted;
    private final Counter rejectedByWatch;
    private final Counter rejectedByPublish;
    private final Counter conflicts;
    private volatile boolean connected;
    private volatile boolean closed;
    private final AtomicBoolean started = new AtomicBoolean();
    private long retryMillis; // store thread only
    private ConfigRejection lastWatchRejection; // store thread only

    /**
     * Creates a store for the cluster rooted at {@code clusterRoot} (e.g. {@code /shardgate/default});
     * call {@link #start()} to begin watching.
     *
     * @param client a started Curator client; its retry policy governs reconnection
     * @param clusterRoot the cluster's root path
     * @param validator run before publishing and before accepting a version
     * @param metrics where the store's counters and gauges go (one store per registry: the gauges
     *     of a second store on the same registry would be ignored)
     */
    public ZkRuleStore(CuratorFramework client, String clusterRoot, ConfigValidator validator, MeterRegistry metrics) {
        this.client = Objects.requireNonNull(client, "client");
        this.layout = new ZkLayout(clusterRoot);
        this.checks = new ConfigChecks(Objects.requireNonNull(validator, "validator"));
        this.reader = new VersionReader(client, layout);
        this.writer = new VersionWriter(client, layout, reader);
        this.routers = new RouterRegistry(client, layout);
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "shardgate-rule-store " + clusterRoot);
            t.setDaemon(true);
            return t;
        });
        this.accepted = Counter.builder("shardgate.config.accepted")
                .description("Configuration versions accepted by this process")
                .register(metrics);
        this.rejectedByWatch = rejectedCounter(metrics, ConfigRejection.WATCH);
        this.rejectedByPublish = rejectedCounter(metrics, ConfigRejection.PUBLISH);
        this.conflicts = Counter.builder("shardgate.config.publish.conflicts")
                .description("Publishes refused because another publisher got there first")
                .register(metrics);
        Gauge.builder("shardgate.config.version", this, s -> s.currentNumber())
                .description("Configuration version this process serves (0: none yet)")
                .register(metrics);
        Gauge.builder("shardgate.zookeeper.connected", this, s -> s.connected ? 1 : 0)
                .description("1 while the ZooKeeper session is connected")
                .register(metrics);
    }

    private static Counter rejectedCounter(MeterRegistry metrics, String source) {
        return Counter.builder("shardgate.config.rejected")
                .description("Configuration versions refused by validation")
                .tag("source", source)
                .register(metrics);
    }

    /** Starts watching the cluster's version; returns at once (see {@link #awaitVersion}). */
    public void start() {
        if (client.getState() != CuratorFrameworkState.STARTED) {
            throw new IllegalStateException("start the Curator client before the rule store");
        }
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("already started");
        }
        client.getConnectionStateListenable().addListener(connectionListener);
        connected = client.getZookeeperClient().isConnected();
        scheduleRefresh();
    }

    /** Adds a subscriber; it hears about versions accepted or refused from now on. */
    public void addListener(ConfigListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public Optional<ConfigVersion> current() {
        return Optional.ofNullable(current.get());
    }

    /**
     * Waits until a version numbered {@code atLeast} or higher is accepted and every listener has
     * been told, or the timeout passes.
     */
    public Optional<ConfigVersion> awaitVersion(long atLeast, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (versionChanged) {
            while (true) {
                ConfigVersion v = delivered;
                if (v != null && v.number() >= atLeast) {
                    return Optional.of(v);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                TimeUnit.NANOSECONDS.timedWait(versionChanged, left);
            }
        }
    }

    @Override
    public StoreStatus status() {
        return new StoreStatus(currentNumber(), connected, Optional.ofNullable(lastRejection.get()));
    }

    /**
     * Writes {@code documents} as the cluster's first version if the cluster has none; of several
     * routers seeding at once exactly one writes.
     *
     * @return true if this call wrote the seed, false if the cluster already had a version
     * @throws InvalidConfigException when the documents fail validation
     */
    public boolean seedIfEmpty(ConfigDocuments documents) {
        refuseIfInvalid(1, documents);
        boolean wrote = writer.seed(documents);
        scheduleRefresh();
        return wrote;
    }

    @Override
    public ConfigVersion publish(ConfigDocuments documents) {
        return publish(writer.currentNumber(), documents);
    }

    @Override
    public ConfigVersion publish(long basedOn, ConfigDocuments documents) {
        refuseIfInvalid(basedOn + 1, documents);
        long number;
        try {
            number = writer.publish(basedOn, documents);
        } catch (ConfigConflictException e) {
            conflicts.increment();
            throw e;
        }
        scheduleRefresh();
        return new ConfigVersion(number, documents);
    }

    /**
     * Registers this process as a live router (an ephemeral node, re-created after a session loss);
     * its config version is kept up to date as versions are accepted.
     *
     * @return whether the node exists within {@code timeout}; it keeps trying in the background
     * @throws IllegalStateException when another live router holds the same id
     */
    public boolean register(LiveRouter router, Duration timeout) {
        try {
            writer.ensureLayout();
            return routers.register(router.withConfigVersion(currentNumber()), timeout.toMillis());
        } catch (IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            throw new RuleStoreException("registering router " + router.id() + " failed: " + e, e);
        }
    }

    @Override
    public List<LiveRouter> liveRouters() {
        try {
            return routers.list();
        } catch (Exception e) {
            throw new RuleStoreException("listing the routers of " + layout.root() + " failed: " + e, e);
        }
    }

    /**
     * Stops watching and removes this router's registration; the Curator client stays open. Close the
     * store before the client: Curator's registration recipe misbehaves on a client closed under it.
     */
    @Override
    public void close() {
        closed = true;
        client.getConnectionStateListenable().removeListener(connectionListener);
        routers.close();
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("rule store thread for {} did not stop within 10 s", layout.root());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- watching ------------------------------------------------------------------------------

    private void onConnectionState(ConnectionState state) {
        connected = state.isConnected();
        if (state.isConnected()) {
            log.info("ZooKeeper {} for {}; catching up from version {}", state, layout.root(), currentNumber());
            scheduleRefresh();
        } else {
            log.warn("ZooKeeper {} for {}; still serving config version {}", state, layout.root(), currentNumber());
        }
    }

    private void scheduleRefresh() {
        if (!closed && refreshPending.compareAndSet(false, true)) {
            submit(
                    () -> {
                        refreshPending.set(false);
                        refresh();
                    },
                    0);
        }
    }

    private void submit(Runnable task, long delayMillis) {
        try {
            thread.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    private void refresh() {
        if (closed) {
            return;
        }
        try {
            refreshOnce();
            retryMillis = 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            if (closed) {
                return;
            }
            retryMillis = Math.min(Math.max(500, retryMillis * 2), MAX_RETRY_MILLIS);
            log.warn(
                    "reading config of {} failed ({}); serving version {}, retrying in {} ms",
                    layout.root(),
                    e.toString(),
                    currentNumber(),
                    retryMillis);
            if (retryPending.compareAndSet(false, true)) {
                submit(
                        () -> {
                            retryPending.set(false);
                            refresh();
                        },
                        retryMillis);
            }
        }
    }

    private void refreshOnce() throws Exception {
        Stat stat = new Stat();
        byte[] pointer;
        try {
            pointer = client.getData()
                    .storingStatIn(stat)
                    .usingWatcher(versionWatcher)
                    .forPath(layout.versionPointer());
        } catch (KeeperException.NoNodeException e) {
            // not seeded yet: an exists-watch fires when the seed creates the node
            if (client.checkExists().usingWatcher(versionWatcher).forPath(layout.versionPointer()) != null) {
                scheduleRefresh();
            }
            return;
        }
        long number = ZkLayout.decodeNumber(pointer);
        if (number < 0) {
            refuse(new ConfigRejection(
                    0,
                    ConfigRejection.WATCH,
                    List.of(layout.versionPointer() + " holds '" + new String(pointer, UTF_8)
                            + "', not a version number"),
                    Instant.now()));
            return;
        }
        if (number < currentNumber()) {
            // versions only move forward; a rollback is the old documents published as a new version
            log.warn(
                    "{} says version {}, older than the served {}; ignored",
                    layout.versionPointer(),
                    number,
                    currentNumber());
            return;
        }
        if (number == currentNumber()) {
            return;
        }
        VersionReader.Result read;
        try {
            read = reader.read(number);
        } catch (KeeperException.NoNodeException e) {
            if (!Arrays.equals(client.getData().forPath(layout.versionPointer()), pointer)) {
                return; // pruned under us by newer publishes; the watch brings the newest one
            }
            read = new VersionReader.Result(null, List.of("version " + number + " is missing: " + e.getPath()));
        }
        List<String> problems = read.problems().isEmpty() ? checks.problems(read.documents()) : read.problems();
        if (problems.isEmpty()) {
            accept(new ConfigVersion(number, read.documents()));
        } else {
            refuse(new ConfigRejection(number, ConfigRejection.WATCH, problems, Instant.now()));
        }
    }

    private void accept(ConfigVersion version) {
        ConfigVersion previous = current.getAndSet(version);
        accepted.increment();
        log.info(
                "config version {} of {} accepted (was {}; sections {})",
                version.number(),
                layout.root(),
                previous == null ? "none" : previous.number(),
                version.documents().sections().keySet());
        routers.runs(version.number());
        for (ConfigListener listener : listeners) {
            try {
                listener.onAccepted(version);
            } catch (RuntimeException e) {
                log.error("config listener {} failed on version {}", listener, version.number(), e);
            }
        }
        synchronized (versionChanged) {
            delivered = version;
            versionChanged.notifyAll();
        }
    }

    private void refuse(ConfigRejection rejection) {
        if (rejection.source().equals(ConfigRejection.WATCH)) {
            ConfigRejection last = lastWatchRejection;
            if (last != null
                    && last.version() == rejection.version()
                    && last.problems().equals(rejection.problems())) {
                return; // the same version seen again (e.g. after a reconnect): refused once is enough
            }
            lastWatchRejection = rejection;
        }
        lastRejection.set(rejection);
        (rejection.source().equals(ConfigRejection.WATCH) ? rejectedByWatch : rejectedByPublish).increment();
        log.warn(
                "config version {} of {} refused ({}); still serving version {}: {}",
                rejection.version(),
                layout.root(),
                rejection.source(),
                currentNumber(),
                String.join("; ", rejection.problems()));
        for (ConfigListener listener : listeners) {
            try {
                listener.onRejected(rejection);
            } catch (RuntimeException e) {
                log.error("config listener {} failed on a rejection", listener, e);
            }
        }
    }

    private void refuseIfInvalid(long number, ConfigDocuments documents) {
        Objects.requireNonNull(documents, "documents");
        List<String> problems = checks.problems(documents);
        if (!problems.isEmpty()) {
            refuse(new ConfigRejection(number, ConfigRejection.PUBLISH, problems, Instant.now()));
            throw new InvalidConfigException(problems);
        }
    }

    private long currentNumber() {
        ConfigVersion v = current.get();
        return v == null ? 0 : v.number();
    }
}
