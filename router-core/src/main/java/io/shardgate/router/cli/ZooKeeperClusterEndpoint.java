package io.shardgate.router.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardgate.admin.store.ConfigConflictException;
import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.admin.store.InvalidConfigException;
import io.shardgate.admin.store.RuleStoreException;
import io.shardgate.admin.store.ZkRuleStore;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.control.ClusterDocuments;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * A cluster's root in ZooKeeper, read and written with the same store and checks a router uses:
 * works while no router runs. Validation needs a router's local sections; the rules file's (or
 * defaults) stand in, which the cluster sections do not depend on.
 */
final class ZooKeeperClusterEndpoint implements ClusterEndpoint {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final CuratorFramework client;
    private final ZkRuleStore store;

    ZooKeeperClusterEndpoint(String connect, String root, RouterConfig local, Duration connectTimeout)
            throws InterruptedException {
        CuratorFramework started;
        try {
            started = CuratorFrameworkFactory.builder()
                    .connectString(connect)
                    .retryPolicy(new ExponentialBackoffRetry(200, 3, 2_000))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new ClusterUnreachableException("--zookeeper '" + connect + "' is not a ZooKeeper connect string"
                    + " (host:port[,host:port...]): " + ClusterUnreachableException.reason(e));
        }
        client = started;
        client.start();
        if (!client.blockUntilConnected((int) connectTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
            client.close();
            throw new ClusterUnreachableException("ZooKeeper " + connect + " is not reachable (no session within "
                    + connectTimeout.toSeconds() + " s): check the address given with --zookeeper, or go through a"
                    + " router's HTTP API with --url");
        }
        store = new ZkRuleStore(
                client,
                root,
                documents -> local == null
                        ? java.util.List.of()
                        : ClusterDocuments.read(local, documents).problems(),
                new SimpleMeterRegistry());
        store.start();
    }

    private Optional<ConfigVersion> current() throws InterruptedException {
        return store.awaitVersion(1, Duration.ofSeconds(10));
    }

    @Override
    public Answer config() throws Exception {
        Optional<ConfigVersion> version = current();
        if (version.isEmpty()) {
            return new Answer(503, JSON.createObjectNode().put("error", "no valid configuration version in ZooKeeper"));
        }
        ObjectNode out = JSON.createObjectNode().put("version", version.get().number());
        ObjectNode docs = out.putObject("documents");
        version.get().documents().sections().forEach(docs::put);
        return new Answer(200, out);
    }

    @Override
    public Answer status() throws Exception {
        current();
        ObjectNode out = JSON.createObjectNode().put("version", store.status().currentVersion());
        out.put("connected", store.status().connected());
        store.status()
                .lastRejection()
                .ifPresent(r -> out.putObject("lastRejection")
                        .put("version", r.version())
                        .put("source", r.source())
                        .set("problems", JSON.valueToTree(r.problems())));
        out.set("routers", JSON.valueToTree(store.liveRouters()));
        return new Answer(200, out);
    }

    @Override
    public Answer publish(OptionalLong basedOn, ConfigDocuments documents) {
        ConfigDocuments hashed = ClusterDocuments.hashPasswords(documents);
        try {
            ConfigVersion published =
                    basedOn.isPresent() ? store.publish(basedOn.getAsLong(), hashed) : store.publish(hashed);
            return new Answer(200, JSON.createObjectNode().put("version", published.number()));
        } catch (InvalidConfigException e) {
            ObjectNode out = JSON.createObjectNode().put("error", "invalid configuration");
            out.set("problems", JSON.valueToTree(e.problems()));
            return new Answer(400, out);
        } catch (ConfigConflictException e) {
            return new Answer(409, JSON.createObjectNode().put("error", e.getMessage()));
        } catch (RuleStoreException e) {
            return new Answer(503, JSON.createObjectNode().put("error", e.getMessage()));
        }
    }

    /** Seeds an empty root (the same multi-op a starting router uses); false if it has a version. */
    boolean seed(ConfigDocuments documents) {
        return store.seedIfEmpty(documents);
    }

    @Override
    public void close() {
        store.close();
        client.close();
    }
}
