package io.shardgate.router.config;

/**
 * The {@code zookeeper} section: where the rules live (issue #4).
 *
 * @param connect connect string; empty means an embedded single-node ZooKeeper in the data dir
 * @param root path of this cluster's documents
 */
public record ZooKeeperSettings(String connect, String root) {
    public ZooKeeperSettings {
        connect = connect == null ? "" : connect;
        root = root == null ? "/shardgate/default" : root;
    }

    static ZooKeeperSettings defaults() {
        return new ZooKeeperSettings(null, null);
    }
}
