package io.shardgate.it.proxy;

import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Shardgate router with a test's own {@code server} settings and users, in front of the shared
 * cluster's MariaDB (hostgroup 10, schema {@value ProxyCluster#SCHEMA}), for behaviour the shared
 * router's configuration does not show: connection limits, timeouts, auth plugins, hashed users.
 */
final class DedicatedRouter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DedicatedRouter.class);

    private final Shardgate router;

    private DedicatedRouter(Shardgate router) {
        this.router = router;
    }

    /**
     * Starts a router on a free port.
     *
     * @param server extra keys of the {@code server} section in YAML flow style, e.g.
     *     {@code "max_connections: 3"}; may be empty
     * @param users entries of the {@code users} list in YAML flow style, e.g.
     *     {@code "{name: app, password: app-secret}"}
     */
    static DedicatedRouter start(ProxyCluster cluster, Path dataDir, String server, List<String> users) {
        StringBuilder yaml = new StringBuilder()
                .append("server: {bind: 127.0.0.1, port: 0, http_port: 0, data_dir: \"")
                .append(dataDir)
                .append('"')
                .append(server.isEmpty() ? "" : ", " + server)
                .append("}\nusers:\n");
        users.forEach(user -> yaml.append("  - ").append(user).append('\n'));
        yaml.append("hostgroups:\n  - {id: 10, writer: \"")
                .append(cluster.backend().address())
                .append("\", user: ")
                .append(ProxyCluster.BACKEND_USER)
                .append(", password: ")
                .append(ProxyCluster.BACKEND_PASSWORD)
                .append("}\nschemas:\n  - {name: ")
                .append(ProxyCluster.SCHEMA)
                .append(", default_hostgroup: 10}\n");
        LOG.info("Starting a dedicated Shardgate with:\n{}", yaml);
        return new DedicatedRouter(Shardgate.start(RouterConfig.parse(yaml.toString())));
    }

    int port() {
        return router.mysqlPort();
    }

    /** The router itself, for what only it can tell (sessions, buffers). */
    Shardgate router() {
        return router;
    }

    /** Closes each router that was started (null: it was not), all of them even when one fails. */
    static void closeAll(DedicatedRouter... routers) {
        RuntimeException failure = null;
        for (DedicatedRouter router : routers) {
            if (router == null) {
                continue;
            }
            try {
                router.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void close() {
        router.close();
    }
}
