package io.shardgate.admin.store;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write side of the rule store: seeding and publishing versions, each as one ZooKeeper multi-op,
 * and pruning old ones. Documents reaching here are already validated.
 */
final class VersionWriter {
    private static final Logger log = LoggerFactory.getLogger(VersionWriter.class);

    private final CuratorFramework client;
    private final ZkLayout layout;
    private final VersionReader reader;

    VersionWriter(CuratorFramework client, ZkLayout layout, VersionReader reader) {
        this.client = client;
        this.layout = layout;
        this.reader = reader;
    }

    /** Writes the first version unless the cluster has one; true if this call wrote it. */
    boolean seed(ConfigDocuments documents) {
        try {
            ensureLayout();
            if (client.checkExists().forPath(layout.versionPointer()) != null) {
                return false;
            }
            long number = highestStoredVersion() + 1; // 1 unless a failed hand edit left a versions/ child
            List<CuratorOp> ops = writeOps(number, documents);
            ops.add(client.transactionOp().create().forPath(layout.versionPointer(), ZkLayout.encodeNumber(number)));
            client.transaction().forOperations(ops);
            log.info("seeded {} with config version {}", layout.root(), number);
            return true;
        } catch (KeeperException.NodeExistsException e) {
            // another router seeded first (or a retried request of ours had already succeeded)
            return false;
        } catch (Exception e) {
            throw new RuleStoreException("seeding " + layout.root() + " failed: " + e, e);
        }
    }

    /**
     * Writes {@code documents} as the version after {@code basedOn}, compare-and-set on the version
     * node; returns the new number.
     */
    long publish(long basedOn, ConfigDocuments documents) {
        Pointer pointer = readPointer();
        if (pointer.number != basedOn) {
            throw new ConfigConflictException(basedOn, pointer.number);
        }
        long number;
        try {
            number = Math.max(basedOn, highestStoredVersion()) + 1;
            List<CuratorOp> ops = writeOps(number, documents);
            ops.add(client.transactionOp()
                    .setData()
                    .withVersion(pointer.stat.getVersion())
                    .forPath(layout.versionPointer(), ZkLayout.encodeNumber(number)));
            client.transaction().forOperations(ops);
        } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException e) {
            Pointer now = readPointer();
            if (now.number > basedOn && wroteThis(now.number, documents)) {
                // Curator retried a multi-op whose first attempt had succeeded before the connection dropped
                number = now.number;
            } else {
                throw new ConfigConflictException(basedOn, now.number);
            }
        } catch (Exception e) {
            throw new RuleStoreException("publishing on top of version " + basedOn + " failed: " + e, e);
        }
        log.info("published config version {} to {}", number, layout.root());
        prune(number);
        return number;
    }

    /** The cluster's current version number as ZooKeeper has it now. */
    long currentNumber() {
        return readPointer().number;
    }

    /** Creates the persistent nodes every operation relies on; idempotent. */
    void ensureLayout() throws Exception {
        for (String path : List.of(layout.versions(), layout.routers())) {
            try {
                client.create().creatingParentsIfNeeded().forPath(path, new byte[0]);
            } catch (KeeperException.NodeExistsException e) {
                // already there
            }
        }
    }

    private List<CuratorOp> writeOps(long number, ConfigDocuments documents) throws Exception {
        List<CuratorOp> ops = new ArrayList<>();
        ops.add(client.transactionOp().create().forPath(layout.version(number), new byte[0]));
        for (Map.Entry<String, String> e : documents.sections().entrySet()) {
            ops.add(client.transactionOp()
                    .create()
                    .forPath(layout.document(number, e.getKey()), e.getValue().getBytes(UTF_8)));
        }
        return ops;
    }

    private boolean wroteThis(long number, ConfigDocuments documents) {
        try {
            return documents.equals(reader.read(number).documents());
        } catch (Exception e) {
            return false;
        }
    }

    /** The version node's content and data version. */
    private record Pointer(long number, Stat stat) {}

    private Pointer readPointer() {
        Stat stat = new Stat();
        byte[] data;
        try {
            data = client.getData().storingStatIn(stat).forPath(layout.versionPointer());
        } catch (KeeperException.NoNodeException e) {
            throw new RuleStoreException(
                    layout.root() + " is not seeded: " + layout.versionPointer() + " does not exist");
        } catch (Exception e) {
            throw new RuleStoreException("reading " + layout.versionPointer() + " failed: " + e, e);
        }
        long number = ZkLayout.decodeNumber(data);
        if (number < 0) {
            throw new RuleStoreException(layout.versionPointer() + " holds '" + new String(data, UTF_8)
                    + "', not a version number; repair it by hand");
        }
        return new Pointer(number, stat);
    }

    private long highestStoredVersion() throws Exception {
        long highest = 0;
        for (String child : client.getChildren().forPath(layout.versions())) {
            highest = Math.max(highest, ZkLayout.parseVersionNodeName(child));
        }
        return highest;
    }

    private void prune(long newest) {
        try {
            for (String child : client.getChildren().forPath(layout.versions())) {
                long n = ZkLayout.parseVersionNodeName(child);
                if (n > 0 && n <= newest - ZkRuleStore.RETAINED_VERSIONS) {
                    client.delete().deletingChildrenIfNeeded().forPath(layout.version(n));
                }
            }
        } catch (Exception e) {
            // old versions are only kept for people to look at; the next publish tries again
            log.debug("pruning old versions of {}: {}", layout.root(), e.toString());
        }
    }
}
