package io.shardgate.it.move;

import io.shardgate.admin.zookeeper.EmbeddedZooKeeper;
import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.move.MoveLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.IntUnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

/**
 * The rig of the move ITs that run one router: the shards of {@link MoveShards} holding {@code
 * shop.orders} in {@value #BUCKETS} hash buckets (0-7 on hostgroup 10, 8-15 on 20, 30 empty), an
 * unsharded reference MariaDB with the same rows, an in-process ZooKeeper, and a router whose moves
 * are followed through {@link #probe}. {@link #owner} is where each bucket's rows belong; a test
 * updates it when a move is done.
 */
final class MoveCluster implements AutoCloseable {
    static final int BUCKETS = 16;
    static final String ORDERS =
            "CREATE TABLE orders (id BIGINT PRIMARY KEY, amount INT NOT NULL, note VARCHAR(40)) ENGINE=InnoDB";

    final MoveShards shards;
    final MariaDbServer reference;
    final EmbeddedZooKeeper zooKeeper;
    final CuratorFramework curator;
    final MoveProbe probe;
    volatile Shardgate router;
    private Path dir;
    private String config;
    private int routers = 1;
    final int[] owner = new int[BUCKETS];

    private MoveCluster(
            MoveShards shards,
            MariaDbServer reference,
            EmbeddedZooKeeper zooKeeper,
            CuratorFramework curator,
            MoveProbe probe,
            Shardgate router) {
        this.shards = shards;
        this.reference = reference;
        this.zooKeeper = zooKeeper;
        this.curator = curator;
        this.probe = probe;
        this.router = router;
    }

    /**
     * Starts the rig under {@code dir} with {@code rows} preloaded rows; the router's ZooKeeper root is
     * {@code root} and {@code hostgroupSettings} go into each hostgroup's YAML (pool, monitor).
     */
    static MoveCluster start(Path dir, String root, int rows, String hostgroupSettings) throws Exception {
        return start(
                dir,
                root,
                rows,
                hostgroupSettings,
                "{name: orders, strategy: hash, column: id, buckets: " + BUCKETS
                        + ", hostgroups: {10: \"0-7\", 20: \"8-15\"}}",
                b -> b < 8 ? 10 : 20);
    }

    /**
     * As above, with {@code tables} the YAML flow entries of {@code shop}'s tables (one a line) and
     * {@code initialOwner} where each bucket's rows are preloaded (a {@code table} rule: every bucket
     * on its hostgroup).
     */
    static MoveCluster start(
            Path dir, String root, int rows, String hostgroupSettings, String tables, IntUnaryOperator initialOwner)
            throws Exception {
        MoveShards shards = MoveShards.start(Files.createDirectories(dir.resolve("shards")), ORDERS);
        MariaDbServer reference = null;
        EmbeddedZooKeeper zooKeeper = null;
        CuratorFramework curator = null;
        try {
            reference = MariaDbServer.builder()
                    .database("shop")
                    .innodbBufferPoolSize("32M")
                    .arg("--innodb-print-all-deadlocks=ON")
                    .start();
            try (Connection c = reference(reference);
                    Statement s = c.createStatement()) {
                s.execute(ORDERS);
            }
            int[] owner = new int[BUCKETS];
            for (int b = 0; b < BUCKETS; b++) {
                owner[b] = initialOwner.applyAsInt(b);
            }
            shards.preload(reference(reference), rows, BUCKETS, b -> owner[b]);
            zooKeeper = new EmbeddedZooKeeper(dir.resolve("zookeeper"), 0);
            zooKeeper.start();
            curator = CuratorFrameworkFactory.newClient("127.0.0.1:" + zooKeeper.port(), new RetryOneTime(100));
            curator.start();
            String rest = String.join(
                    "\n",
                    "zookeeper: {connect: \"127.0.0.1:" + zooKeeper.port() + "\", root: " + root + "}",
                    "users: [{name: app, password: app}]",
                    "admin: {users: [{name: radmin, password: radmin}]}",
                    "hostgroups:",
                    shards.hostgroupsYaml(hostgroupSettings),
                    "schemas:",
                    "  - name: shop",
                    "    default_hostgroup: 10",
                    "    tables:",
                    tables.lines().map(t -> "      - " + t).collect(java.util.stream.Collectors.joining("\n")),
                    "");
            Shardgate router = Shardgate.start(RouterConfig.parse(config(dir.resolve("router"), rest)));
            MoveCluster cluster = new MoveCluster(
                    shards, reference, zooKeeper, curator, new MoveProbe(new MoveLog(curator, root)), router);
            cluster.dir = dir;
            cluster.config = rest;
            System.arraycopy(owner, 0, cluster.owner, 0, BUCKETS);
            return cluster;
        } catch (Exception | Error e) {
            for (AutoCloseable c : new AutoCloseable[] {curator, zooKeeper, reference, shards}) {
                if (c != null) {
                    c.close();
                }
            }
            throw e;
        }
    }

    private static String config(Path dataDir, String rest) throws java.io.IOException {
        return "server: {bind: 127.0.0.1, port: 0, http_port: 0, admin_port: 0, connect_timeout_millis: 1000,"
                + " data_dir: \"" + Files.createDirectories(dataDir) + "\"}\n" + rest;
    }

    /**
     * Starts another router of the cluster, then stops this one (the mover): the mover's latch and the
     * moves pass to the new router, which {@link #router} is from then on.
     */
    void handOver() throws Exception {
        Shardgate next = Shardgate.start(RouterConfig.parse(config(dir.resolve("router-" + ++routers), config)));
        router.close();
        router = next;
    }

    /** A connection to the router's SQL admin port. */
    Connection admin() throws SQLException {
        return Driver.MYSQL.connect(router.adminPort(), null, "radmin", "radmin");
    }

    /** A client connection through the router to {@code shop}. */
    Connection client() throws SQLException {
        return Driver.MARIADB.connect(router.mysqlPort(), "shop", "app", "app");
    }

    /** A connection to the reference's {@code shop}. */
    Connection reference() throws SQLException {
        return reference(reference);
    }

    private static Connection reference(MariaDbServer reference) throws SQLException {
        return DriverManager.getConnection(
                "jdbc:mariadb://" + reference.address() + "/shop?user=root&password=" + reference.rootPassword());
    }

    /** Each server's latest InnoDB deadlock ({@link LatestDeadlock}), shards by hostgroup, then the reference. */
    String latestDeadlocks() {
        StringBuilder all = new StringBuilder();
        for (int hostgroup : MoveShards.HOSTGROUPS) {
            all.append("--- hostgroup ").append(hostgroup).append(":\n");
            try (Connection c = shards.direct(hostgroup)) {
                all.append(LatestDeadlock.of(c));
            } catch (SQLException e) {
                all.append("(cannot read: ").append(e.getMessage()).append(')');
            }
            all.append('\n');
        }
        all.append("--- reference:\n");
        try (Connection c = reference()) {
            all.append(LatestDeadlock.of(c));
        } catch (SQLException e) {
            all.append("(cannot read: ").append(e.getMessage()).append(')');
        }
        return all.append('\n').toString();
    }

    /** The shards' rows against the reference's, each bucket expected on {@link #owner}. */
    OrdersContents contents() throws SQLException {
        try (Connection ref = reference()) {
            return OrdersContents.compare(shards, ref, BUCKETS, b -> owner[b]);
        }
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {router, curator, zooKeeper, reference, shards}) {
            if (c != null) {
                c.close();
            }
        }
    }
}
