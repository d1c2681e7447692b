package io.shardgate.router.twophase;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;

/**
 * Each router process's xid epoch and whether that process is alive, in ZooKeeper next to the
 * cluster's configuration:
 *
 * <pre>
 * {root}/transactions/epochs/e-0000000042   persistent sequential: one per router start (the xid epoch)
 * {root}/transactions/owners/42             ephemeral: router epoch 42 is alive
 * </pre>
 *
 * <p>The epoch makes transaction ids unique across routers and restarts ({@link Xid}); liveness lets
 * a resolver act at once on a dead router's transactions and shows in the admin view. The
 * decisions themselves live on the shards ({@link DecisionTable}), not here: a two-phase COMMIT
 * writes nothing to ZooKeeper.
 *
 * <p>Threading: blocking calls, on the startup and resolver threads.
 */
public final class RouterEpochs implements AutoCloseable {
    private final CuratorFramework client;
    private final String base;
    private volatile long epoch = -1;
    private PersistentNode owner;

    public RouterEpochs(CuratorFramework client, String root) {
        this.client = client;
        this.base = root + "/transactions";
    }

    /**
     * Takes this process's epoch and registers it as alive (blocks up to {@code timeoutMillis}).
     *
     * @return the epoch
     */
    public synchronized long start(long timeoutMillis) throws Exception {
        if (epoch >= 0) {
            return epoch;
        }
        if (!client.blockUntilConnected((int) timeoutMillis, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("ZooKeeper did not answer within " + timeoutMillis + " ms");
        }
        String created = client.create()
                .creatingParentContainersIfNeeded()
                .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath(base + "/epochs/e-");
        long taken = Long.parseLong(created.substring(created.lastIndexOf("e-") + 2));
        client.createContainers(base + "/owners");
        PersistentNode node = new PersistentNode(client, CreateMode.EPHEMERAL, false, ownerPath(taken), new byte[0]);
        node.start();
        if (!node.waitForInitialCreate(timeoutMillis, TimeUnit.MILLISECONDS)) {
            node.close();
            throw new IllegalStateException("the owner node of epoch " + taken + " was not created in time");
        }
        owner = node;
        epoch = taken;
        return taken;
    }

    /** This process's epoch, or -1 until {@link #start} succeeded. */
    public long epoch() {
        return epoch;
    }

    /** Whether the router of {@code epoch} is alive (its ephemeral node exists). */
    public boolean ownerAlive(long ownerEpoch) throws Exception {
        return client.checkExists().forPath(ownerPath(ownerEpoch)) != null;
    }

    @Override
    public synchronized void close() {
        if (owner != null) {
            try {
                owner.close();
            } catch (IOException | RuntimeException e) {
                // the session is gone already, and the ephemeral node with it
            }
            owner = null;
        }
    }

    private String ownerPath(long ownerEpoch) {
        return base + "/owners/" + ownerEpoch;
    }
}
