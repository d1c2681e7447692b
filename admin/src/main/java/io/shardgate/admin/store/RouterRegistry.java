package io.shardgate.admin.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live routers of a cluster: this process's own ephemeral registration and the listing of all.
 *
 * <p>Curator's {@link PersistentNode} re-creates the ephemeral node after a session expires, so a
 * router that survives a ZooKeeper outage shows up again once it reconnects.
 */
final class RouterRegistry implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RouterRegistry.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final CuratorFramework client;
    private final ZkLayout layout;
    private PersistentNode node; // guarded by this
    private LiveRouter self; // guarded by this

    RouterRegistry(CuratorFramework client, ZkLayout layout) {
        this.client = client;
        this.layout = layout;
    }

    /**
     * Registers this process; returns whether the node exists in ZooKeeper within {@code
     * timeoutMillis} (it keeps trying in the background otherwise).
     */
    synchronized boolean register(LiveRouter router, long timeoutMillis) throws Exception {
        String path = layout.router(router.id());
        Stat existing = client.checkExists().forPath(path);
        long session = client.getZookeeperClient().getZooKeeper().getSessionId();
        if (existing != null && existing.getEphemeralOwner() != session) {
            throw new IllegalStateException("router id " + router.id() + " is already registered by a live router");
        }
        closeNode();
        self = router;
        node = new PersistentNode(client, CreateMode.EPHEMERAL, false, path, encode(router));
        node.start();
        return node.waitForInitialCreate(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** Records in this process's registration the configuration version it now runs. */
    synchronized void runs(long configVersion) {
        if (node == null || self.configVersion() == configVersion) {
            return;
        }
        self = self.withConfigVersion(configVersion);
        try {
            node.setData(encode(self));
        } catch (Exception e) {
            // PersistentNode writes the new data when it (re)creates the node; nothing is lost
            log.warn(
                    "could not record config version {} in router node {}: {}", configVersion, self.id(), e.toString());
        }
    }

    List<LiveRouter> list() throws Exception {
        List<String> ids;
        try {
            ids = client.getChildren().forPath(layout.routers());
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
        List<LiveRouter> routers = new ArrayList<>();
        for (String id : ids) {
            try {
                routers.add(JSON.readValue(client.getData().forPath(layout.router(id)), LiveRouter.class));
            } catch (KeeperException.NoNodeException e) {
                // the router left between the listing and the read
            } catch (IOException | IllegalArgumentException e) {
                log.warn("router node {} does not hold a router description: {}", id, e.toString());
            }
        }
        routers.sort(Comparator.comparing(LiveRouter::id));
        return routers;
    }

    @Override
    public synchronized void close() {
        closeNode();
    }

    private void closeNode() {
        if (node != null) {
            try {
                node.close();
            } catch (IOException | RuntimeException e) {
                // the session is gone already (client closed): so is the ephemeral node
                log.warn("closing router registration: {}", e.toString());
            }
            node = null;
        }
    }

    private static byte[] encode(LiveRouter router) {
        try {
            return JSON.writeValueAsBytes(router);
        } catch (IOException e) {
            throw new IllegalStateException("a LiveRouter always serialises", e);
        }
    }
}
