package io.shardgate.it.proxy;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One real MariaDB shard behind one in-process Shardgate router, shared by every proxy IT of a test
 * run (see {@link ProxyClusterExtension}). Tests run each statement {@linkplain #proxied through the
 * router} and {@linkplain #direct directly on the shard} and compare what the drivers return.
 */
public final class ProxyCluster implements AutoCloseable {

    public static final String SCHEMA = "shop";
    public static final String APP_USER = "app";
    public static final String APP_PASSWORD = "app-secret";
    public static final String BACKEND_USER = "shardgate";
    public static final String BACKEND_PASSWORD = "sg-secret";
    /** Both the router's and the shard's limit: rows and statements larger than 16 MiB must pass. */
    public static final int MAX_ALLOWED_PACKET = 64 * 1024 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(ProxyCluster.class);

    private final MariaDbServer backend;
    private final Shardgate router;
    private final Path routerDataDir;

    private ProxyCluster(MariaDbServer backend, Shardgate router, Path routerDataDir) {
        this.backend = backend;
        this.router = router;
        this.routerDataDir = routerDataDir;
    }

    static ProxyCluster start() throws Exception {
        MariaDbServer backend = MariaDbServer.builder()
                .database(SCHEMA)
                .user(BACKEND_USER, BACKEND_PASSWORD)
                .innodbBufferPoolSize("256M")
                .arg("--max-allowed-packet=" + MAX_ALLOWED_PACKET)
                .start();
        Path routerDataDir = null;
        try {
            routerDataDir = Files.createTempDirectory("shardgate-router-");
            String yaml = routerYaml(backend, routerDataDir);
            LOG.info("Starting Shardgate with:\n{}", yaml);
            Shardgate router = Shardgate.start(RouterConfig.parse(yaml));
            LOG.info("Shardgate listens on 127.0.0.1:{} in front of MariaDB {}", router.mysqlPort(), backend.address());
            return new ProxyCluster(backend, router, routerDataDir);
        } catch (Exception | Error e) {
            backend.close();
            deleteQuietly(routerDataDir);
            throw e;
        }
    }

    /** The configuration of the issue that introduced the router: one hostgroup, one schema. */
    static String routerYaml(MariaDbServer backend, Path dataDir) {
        return String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, admin_port: 0, http_port: 0, max_allowed_packet: "
                        + MAX_ALLOWED_PACKET + ", data_dir: \"" + dataDir + "\"}",
                "users:",
                "  - {name: " + APP_USER + ", password: " + APP_PASSWORD + "}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + backend.address() + "\", user: " + BACKEND_USER + ", password: "
                        + BACKEND_PASSWORD + "}",
                "schemas:",
                "  - {name: " + SCHEMA + ", default_hostgroup: 10}",
                "");
    }

    /**
     * A router of its own in front of this cluster's MariaDB with one backend connection and one
     * event loop, so a second client session is offered the very connection the first one left;
     * its data directory is a new temporary one. The caller closes it.
     */
    public Shardgate oneConnectionRouter(boolean multiplexing) throws Exception {
        return router(1, multiplexing);
    }

    /** A router of its own on the backend, one event loop, at most {@code maxConnections} to the backend. */
    public Shardgate router(int maxConnections, boolean multiplexing) throws Exception {
        Path dir = Files.createTempDirectory("shardgate-one-connection-");
        return Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, admin_port: 0, http_port: 0, io_threads: 1, data_dir: \"" + dir
                        + "\"}",
                "users:",
                "  - {name: " + APP_USER + ", password: " + APP_PASSWORD + "}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + backend.address() + "\", user: " + BACKEND_USER + ", password: "
                        + BACKEND_PASSWORD + ", pool: {max_connections: " + maxConnections + ", multiplexing: "
                        + multiplexing + "}}",
                "schemas:",
                "  - {name: " + SCHEMA + ", default_hostgroup: 10}",
                "")));
    }

    public MariaDbServer backend() {
        return backend;
    }

    public int routerPort() {
        return router.mysqlPort();
    }

    /** A connection through Shardgate as the application user, to schema {@value #SCHEMA}. */
    public Connection proxied(Driver driver, Mode mode) throws SQLException {
        return driver.connect(routerPort(), SCHEMA, APP_USER, APP_PASSWORD, options(mode));
    }

    /** A connection straight to the shard, with the same driver options as {@link #proxied}. */
    public Connection direct(Driver driver, Mode mode) throws SQLException {
        return driver.connect(backend.port(), SCHEMA, BACKEND_USER, BACKEND_PASSWORD, options(mode));
    }

    /** A connection straight to the shard for setting up and checking data. */
    public Connection direct() throws SQLException {
        return direct(Driver.MARIADB, Mode.TEXT);
    }

    /** The mode's options, plus timeouts so that a hung router fails a test instead of stalling it. */
    private static Map<String, String> options(Mode mode) {
        Map<String, String> options = new HashMap<>(mode.properties());
        options.put("connectTimeout", "30000");
        options.put("socketTimeout", "180000");
        return options;
    }

    @Override
    public void close() {
        try {
            router.close();
        } finally {
            backend.close();
            deleteQuietly(routerDataDir);
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            LOG.warn("cannot delete {}: {}", dir, e.toString());
        }
    }

    @Override
    public String toString() {
        return "Shardgate 127.0.0.1:" + routerPort() + " -> MariaDB " + backend.address() + " ("
                + backend.binaries().mariadbd() + ")";
    }
}
