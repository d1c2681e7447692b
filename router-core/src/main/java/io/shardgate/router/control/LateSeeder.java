package io.shardgate.router.control;

import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.admin.store.InvalidConfigException;
import io.shardgate.admin.store.RuleStoreException;
import io.shardgate.admin.store.ZkRuleStore;
import io.shardgate.router.config.ConfigException;
import io.shardgate.router.config.RouterConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seeds the cluster's root from the YAML file when ZooKeeper was not reachable at the router's
 * start: the router serves its YAML meanwhile, and the first time its ZooKeeper session connects
 * an empty root gets the YAML's sections as version 1 (a root that has versions is adopted: the
 * store's watch delivers its current version, and {@link StartupPublisher} warns about the file's
 * sections that differ from it, or publishes them with {@code publish_on_start}). Runs off
 * Curator's event thread, retrying with backoff while ZooKeeper answers errors, until the store
 * holds a version.
 */
final class LateSeeder implements ConnectionStateListener, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LateSeeder.class);
    private static final long MAX_BACKOFF_MILLIS = 5_000;
    private static final Duration WAIT_FOR_VERSION = Duration.ofSeconds(30);

    private final CuratorFramework client;
    private final ZkRuleStore store;
    private final ConfigDocuments seed;
    private final String root;
    private final StartupPublisher publisher;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sg-late-seed");
        t.setDaemon(true);
        return t;
    });

    LateSeeder(CuratorFramework client, ZkRuleStore store, RouterConfig file) {
        this.client = client;
        this.store = store;
        this.seed = ClusterDocuments.of(file);
        this.root = file.zookeeper().root();
        this.publisher = new StartupPublisher(file, store);
    }

    /** Starts listening; seeds at once if the session is already connected. */
    void start() {
        client.getConnectionStateListenable().addListener(this);
        if (client.getZookeeperClient().isConnected()) {
            thread.execute(() -> attempt(200));
        }
    }

    @Override
    public void stateChanged(CuratorFramework c, ConnectionState state) {
        if (state.isConnected() && !thread.isShutdown()) {
            thread.execute(() -> attempt(200));
        }
    }

    private void attempt(long backoffMillis) {
        if (thread.isShutdown()) {
            return; // done by an earlier attempt
        }
        if (store.current().isPresent()) {
            // the cluster's version arrived first: nothing to seed, but the file may differ from it
            compareWithTheFile();
            close();
            return;
        }
        try {
            if (store.seedIfEmpty(seed)) {
                log.info("ZooKeeper reachable: {} was empty, seeded it from the YAML file", root);
            } else {
                log.info(
                        "ZooKeeper reachable: {} holds the cluster's versions; the router runs them as they are accepted",
                        root);
                compareWithTheFile();
            }
            close();
        } catch (InvalidConfigException e) {
            // the YAML passed the same checks at start: only a bug gets here
            log.error("the YAML file's sections cannot seed {}: {}", root, e.getMessage());
            close();
        } catch (RuleStoreException e) {
            log.warn("seeding {} failed ({}); retrying in {} ms", root, e.getMessage(), backoffMillis);
            if (client.getZookeeperClient().isConnected() && !thread.isShutdown()) {
                long next = Math.min(backoffMillis * 2, MAX_BACKOFF_MILLIS);
                thread.schedule(() -> attempt(next), backoffMillis, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Warns about (or publishes) the file's edits, as a start with ZooKeeper reachable would. */
    private void compareWithTheFile() {
        try {
            Optional<ConfigVersion> stored = store.awaitVersion(1, WAIT_FOR_VERSION);
            if (stored.isPresent()) {
                publisher.reconcile(stored.get(), WAIT_FOR_VERSION);
            }
        } catch (ConfigException e) {
            log.error("{}; the router runs the cluster's version", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        client.getConnectionStateListenable().removeListener(this);
        thread.shutdown();
    }
}
