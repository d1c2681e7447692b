package io.shardgate.it.faults;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Two real MariaDB shards (hostgroups 10 and 20) that a test can kill, stop and restart on the
 * same port and data directory, and the router configuration in front of them: table {@code
 * items} is range-sharded on {@code id} (below {@value #SPLIT} on hostgroup 10, the rest on 20).
 * The router runs in-process ({@link #startRouter}) or as its own JVM ({@link io.shardgate.it.server.RouterProcess}).
 * The monitor checks every {@value #MONITOR_INTERVAL_MILLIS} ms, so a shard that comes back is
 * ONLINE again within a few checks.
 */
final class FaultCluster implements AutoCloseable {
    static final String SCHEMA = "faults";
    static final String USER = "app";
    static final String PASSWORD = "app-secret";
    static final String BACKEND_USER = "shardgate";
    static final String BACKEND_PASSWORD = "sg-secret";
    static final long SPLIT = 1_000_000;
    static final int MONITOR_INTERVAL_MILLIS = 200;
    static final int CONNECT_TIMEOUT_MILLIS = 1000;

    private final Path dir;
    private final MariaDbServer[] shards = new MariaDbServer[2];
    private final int[] ports = new int[2];
    private Shardgate router;

    FaultCluster(Path dir) {
        this.dir = dir;
        try {
            for (int i = 0; i < 2; i++) {
                shards[i] = startShard(i, 0);
                ports[i] = shards[i].port();
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    private MariaDbServer startShard(int index, int port) {
        return MariaDbServer.builder()
                .port(port)
                .dataDir(dir.resolve("shard" + index)) // named: kept when the process dies, reused on restart
                .database(SCHEMA)
                .user(BACKEND_USER, BACKEND_PASSWORD)
                .innodbBufferPoolSize("32M")
                .start();
    }

    static int index(int hostgroup) {
        return hostgroup / 10 - 1;
    }

    /** The hostgroup holding {@code items} row {@code id}. */
    static int hostgroupOf(long id) {
        return id < SPLIT ? 10 : 20;
    }

    MariaDbServer shard(int hostgroup) {
        return shards[index(hostgroup)];
    }

    /**
     * The router's YAML: {@code serverKeys} are extra keys of the {@code server} section (flow
     * style, may be empty), {@code port} its MySQL port (0: any); {@code monitored} false turns
     * health checks off (a failing server is then never shunned).
     */
    String routerYaml(int port, String serverKeys, boolean monitored) throws IOException {
        return routerYaml(port, serverKeys, monitored, "");
    }

    /**
     * As {@link #routerYaml(int, String, boolean)}, with {@code tail} appended: further keys of the
     * schema (indented by 4) and then top-level sections.
     */
    String routerYaml(int port, String serverKeys, boolean monitored, String tail) throws IOException {
        Path data = Files.createDirectories(dir.resolve("router"));
        String monitor = monitored
                ? "monitor: {interval_millis: " + MONITOR_INTERVAL_MILLIS
                        + ", timeout_millis: 500, shun_after_failures: 2}"
                : "monitor: {enabled: false}";
        StringBuilder yaml = new StringBuilder()
                .append("server: {bind: 127.0.0.1, port: ")
                .append(port)
                .append(", http_port: 0, connect_timeout_millis: ")
                .append(CONNECT_TIMEOUT_MILLIS)
                .append(", data_dir: \"")
                .append(data)
                .append('"')
                .append(serverKeys.isEmpty() ? "" : ", " + serverKeys)
                .append("}\n")
                .append("users: [{name: " + USER + ", password: " + PASSWORD + "}]\n")
                .append("hostgroups:\n");
        for (int i = 0; i < 2; i++) {
            yaml.append("  - {id: ")
                    .append(10 * (i + 1))
                    .append(", writer: \"")
                    .append(MariaDbServer.HOST + ":" + ports[i])
                    .append("\", user: " + BACKEND_USER + ", password: " + BACKEND_PASSWORD)
                    .append(", pool: {max_connections: 20, acquire_timeout_millis: 3000}, ")
                    .append(monitor)
                    .append("}\n");
        }
        yaml.append("schemas:\n  - name: " + SCHEMA + "\n    default_hostgroup: 10\n    tables:\n")
                .append("      - {name: items, strategy: range, column: id, ranges: [{below: ")
                .append(SPLIT)
                .append(", hostgroup: 10}, {hostgroup: 20}]}\n")
                .append(tail);
        return yaml.toString();
    }

    /** Starts the in-process router. */
    Shardgate startRouter(String serverKeys, boolean monitored) throws IOException {
        return startRouter(serverKeys, monitored, "");
    }

    /** Starts the in-process router, {@code tail} as in {@link #routerYaml(int, String, boolean, String)}. */
    Shardgate startRouter(String serverKeys, boolean monitored, String tail) throws IOException {
        router = Shardgate.start(RouterConfig.parse(routerYaml(0, serverKeys, monitored, tail)));
        return router;
    }

    /** Creates {@code items} on both shards. */
    void createItems() throws SQLException {
        for (int hostgroup : new int[] {10, 20}) {
            try (Connection c = direct(hostgroup);
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS items (id BIGINT PRIMARY KEY, qty INT NOT NULL, "
                        + "note VARCHAR(200)) ENGINE=InnoDB");
            }
        }
    }

    /** Runs {@code sql} on the shard directly. */
    void onShard(int hostgroup, String... sql) throws SQLException {
        try (Connection c = direct(hostgroup);
                Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        }
    }

    Connection proxied(int port, Driver driver, Map<String, String> properties) throws SQLException {
        Map<String, String> p = new HashMap<>(properties);
        p.putIfAbsent("socketTimeout", "60000");
        p.putIfAbsent("connectTimeout", "10000");
        return driver.connect(port, SCHEMA, USER, PASSWORD, p);
    }

    Connection proxied(Driver driver) throws SQLException {
        return proxied(router.mysqlPort(), driver, Map.of());
    }

    /** A connection to the shard itself, bypassing the router. */
    Connection direct(int hostgroup) throws SQLException {
        return Driver.MARIADB.connect(
                ports[index(hostgroup)], SCHEMA, BACKEND_USER, BACKEND_PASSWORD, Map.of("socketTimeout", "30000"));
    }

    /** SIGKILL to the shard's mariadbd; returns once it is gone. */
    void kill(int hostgroup) throws InterruptedException {
        MariaDbServer shard = shard(hostgroup);
        ProcessHandle process = ProcessHandle.of(shard.pid()).orElseThrow();
        process.destroyForcibly(); // SIGKILL on Linux: no shutdown, no flush, sockets reset by the kernel
        process.onExit().orTimeout(30, TimeUnit.SECONDS).join();
        shard.close(); // only its temporary home: the named data directory stays
    }

    /** Starts the shard again on its port and data directory (InnoDB runs its crash recovery). */
    void restart(int hostgroup) {
        int i = index(hostgroup);
        shards[i] = startShard(i, ports[i]);
    }

    /** Sends {@code signal} ({@code STOP}, {@code CONT}...) to the shard's mariadbd with kill(1). */
    void signal(int hostgroup, String signal) throws IOException, InterruptedException {
        signal(shard(hostgroup).pid(), signal);
    }

    static void signal(long pid, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .inheritIO()
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
        }
    }

    /** Polls {@code condition} until true; fails after {@code limit}. */
    static void eventually(String what, Duration limit, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + limit + ": " + what);
            }
            Thread.sleep(50);
        }
    }

    @Override
    public void close() {
        if (router != null) {
            router.close();
        }
        for (MariaDbServer shard : shards) {
            if (shard != null) {
                try {
                    signal(shard.pid(), "CONT"); // a stopped server cannot shut down
                } catch (IOException | InterruptedException | RuntimeException e) {
                    // gone already
                }
                shard.close();
            }
        }
    }
}
