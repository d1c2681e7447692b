package io.shardgate.router.config;

import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.common.PathUtils;

/**
 * The {@code zookeeper} section: where the cluster's configuration lives. The YAML seeds it when
 * the cluster's root is empty; afterwards ZooKeeper is the source of truth for hostgroups, users,
 * schemas, query rules and cache settings.
 *
 * @param connect connect string of an ensemble ({@code zk1:2181,zk2:2181}); empty starts a
 *     single-node ZooKeeper inside the router with its data under {@code server.data_dir}
 * @param root this cluster's path; routers sharing a root share their configuration
 * @param embeddedPort port of the embedded ZooKeeper on 127.0.0.1 (0: any free port); unused with
 *     {@code connect}
 * @param sessionTimeoutMillis ZooKeeper session timeout; the router's registration node disappears
 *     this long after the router does
 * @param startupTimeoutMillis how long the start waits for ZooKeeper and the cluster's version
 *     before serving the YAML's own rules (and catching up once ZooKeeper answers)
 * @param publishOnStart when the cluster's root already holds a version whose sections differ from
 *     the file's, publish the file's as the next version at start (validated as any new version)
 *     instead of running the stored one; {@code bin/shardgate run --publish-config} sets it
 */
public record ZooKeeperSettings(
        String connect,
        String root,
        Integer embeddedPort,
        Integer sessionTimeoutMillis,
        Integer startupTimeoutMillis,
        Boolean publishOnStart) {
    public ZooKeeperSettings {
        connect = connect == null ? "" : connect.trim();
        root = root == null ? "/shardgate/default" : root;
        embeddedPort = embeddedPort == null ? 0 : embeddedPort;
        sessionTimeoutMillis = sessionTimeoutMillis == null ? 15_000 : sessionTimeoutMillis;
        startupTimeoutMillis = startupTimeoutMillis == null ? 10_000 : startupTimeoutMillis;
        publishOnStart = publishOnStart != null && publishOnStart;
    }

    static ZooKeeperSettings defaults() {
        return new ZooKeeperSettings(null, null, null, null, null, null);
    }

    /** These settings with {@code publish_on_start} set. */
    public ZooKeeperSettings withPublishOnStart() {
        return new ZooKeeperSettings(connect, root, embeddedPort, sessionTimeoutMillis, startupTimeoutMillis, true);
    }

    /** True when the router runs its own single-node ZooKeeper. */
    public boolean embedded() {
        return connect.isEmpty();
    }

    List<String> validate() {
        List<String> problems = new ArrayList<>();
        try {
            PathUtils.validatePath(root);
            if (root.equals("/")) {
                problems.add("zookeeper.root must name a path below /, e.g. /shardgate/prod");
            }
        } catch (IllegalArgumentException e) {
            problems.add("zookeeper.root '" + root + "' is not a ZooKeeper path: " + e.getMessage());
        }
        if (embeddedPort < 0 || embeddedPort > 65535) {
            problems.add("zookeeper.embedded_port must be a TCP port (0..65535), was " + embeddedPort);
        }
        if (sessionTimeoutMillis < 1000) {
            problems.add("zookeeper.session_timeout_millis must be at least 1000, was " + sessionTimeoutMillis);
        }
        if (startupTimeoutMillis < 0) {
            problems.add("zookeeper.startup_timeout_millis must not be negative, was " + startupTimeoutMillis);
        }
        return problems;
    }
}
