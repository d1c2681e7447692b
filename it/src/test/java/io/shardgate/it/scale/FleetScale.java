package io.shardgate.it.scale;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.admin.store.InvalidConfigException;
import io.shardgate.admin.store.ZkRuleStore;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.it.server.ZooKeeperEnsemble;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.control.ClusterDocuments;
import io.shardgate.router.routing.RoutingRules;
import io.shardgate.sharding.digest.Digest;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fleet-scale benchmark of issue 22: many routers in this JVM on one three-member ZooKeeper
 * ensemble (in-process), a configuration of many hostgroups and tables, a few real MariaDB servers
 * behind the hostgroups. It measures the stored configuration's size and the largest that fits,
 * each router's start-up time and heap, the plan cache's heap per plan, the time for a rule change
 * to reach every router and the ZooKeeper traffic per change, and the connections a shard sees as
 * routers are added under client load. It writes a markdown report; nothing here passes or fails.
 *
 * <p>Not a test (no JUnit, a name neither surefire nor failsafe picks up): run it with {@code
 * benchmarks/fleet/fleet-scale.sh}, which builds, runs this class and names the report. Settings are
 * system properties {@code fleet.*}; see {@link Settings}.
 */
public final class FleetScale {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String ROOT = "/shardgate/fleet";

    private final Settings settings;
    private final Path work;
    private final FleetReport report;

    private FleetScale(Settings settings, Path work, FleetReport report) {
        this.settings = settings;
        this.work = work;
        this.report = report;
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.fromSystemProperties();
        Path work = Files.createTempDirectory("fleet-scale");
        FleetReport report = new FleetReport(settings);
        try {
            new FleetScale(settings, work, report).run();
        } finally {
            Path out = Path.of(settings.out());
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, report.markdown());
            System.out.println(report.markdown());
            System.out.println("report: " + out.toAbsolutePath());
        }
        System.exit(0); // MariaDB shutdown hooks and ZooKeeper's non-daemon threads end here
    }

    private void run() throws Exception {
        int tables = configurationSize();
        List<AutoCloseable> open = new ArrayList<>();
        try {
            List<MariaDbServer> servers = new ArrayList<>();
            for (int s = 0; s < settings.servers(); s++) {
                MariaDbServer server = MariaDbServer.builder()
                        .database(FleetConfig.SCHEMA)
                        .user(FleetConfig.BACKEND_USER, FleetConfig.BACKEND_PASSWORD)
                        .innodbBufferPoolSize("64M")
                        .start();
                open.add(server);
                servers.add(server);
            }
            FleetConfig fleet = new FleetConfig(
                    settings.hostgroups(),
                    tables,
                    servers.stream().map(MariaDbServer::address).toList(),
                    settings.pool(),
                    settings.clients());
            FleetBackends.createLoadTables(fleet, servers);
            ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.start(work.resolve("zookeeper"), 3);
            open.add(ensemble);

            // heap first, while ZooKeeper holds one version: the in-process members keep the last
            // versions (and their transaction log) in this heap too, and the changes grow them
            baseRouterHeap(ensemble, servers);
            long heapBefore = heapAfterGc();
            List<Shardgate> routers = startRouters(fleet, ensemble, ROOT, settings.routers(), open, true);
            report.fleetHeap(routers.size(), heapAfterGc() - heapBefore);
            planCache(routers.get(0), fleet);
            new FleetConnections(settings, report).measure(routers, fleet, servers, open);
            propagation(routers, fleet, ensemble);
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                try {
                    open.get(i).close();
                } catch (Exception e) {
                    System.err.println("closing " + open.get(i) + ": " + e);
                }
            }
        }
    }

    /** Sizes of the stored version; returns the number of tables the fleet runs with. */
    private int configurationSize() throws Exception {
        int h = settings.hostgroups();
        List<String> servers = List.of("127.0.0.1:3306", "127.0.0.1:3307");
        long emptyTwo = bytes(new FleetConfig(2, 0, servers, settings.pool(), settings.clients()));
        long emptyAll = bytes(new FleetConfig(h, 0, servers, settings.pool(), settings.clients()));
        long wanted = bytes(new FleetConfig(h, settings.tables(), servers, settings.pool(), settings.clients()));
        double perHostgroup = (emptyAll - emptyTwo) / (double) (h - 2);
        double perTable = (wanted - emptyAll) / (double) settings.tables();
        int fits = (int) ((ZkRuleStore.MAX_VERSION_BYTES - emptyAll) / perTable);
        // the per-table bytes vary with the hostgroup id's digits: step to the exact boundary
        while (bytes(new FleetConfig(h, fits + 1, servers, settings.pool(), settings.clients()))
                <= ZkRuleStore.MAX_VERSION_BYTES) {
            fits += 50;
        }
        while (bytes(new FleetConfig(h, fits, servers, settings.pool(), settings.clients()))
                > ZkRuleStore.MAX_VERSION_BYTES) {
            fits -= 1;
        }
        long fitsBytes = bytes(new FleetConfig(h, fits, servers, settings.pool(), settings.clients()));
        report.size(h, settings.tables(), emptyTwo, emptyAll, wanted, perHostgroup, perTable, fits, fitsBytes);
        return Math.min(settings.tables(), fits);
    }

    private long bytes(FleetConfig fleet) throws Exception {
        return ConfigSize.of(ClusterDocuments.of(RouterConfig.parse(routerYaml(0, "size", "", ROOT, fleet))));
    }

    /**
     * Starts {@code count} routers one after the other, timing each start-up (parse, start, {@code
     * /ready}) and the heap used after a full GC once it runs.
     */
    private List<Shardgate> startRouters(
            FleetConfig fleet,
            ZooKeeperEnsemble ensemble,
            String root,
            int count,
            List<AutoCloseable> open,
            boolean record)
            throws Exception {
        List<Shardgate> routers = new ArrayList<>();
        long heapBefore = heapAfterGc();
        for (int i = 0; i < count; i++) {
            String yaml = routerYaml(
                    i, root.substring(root.lastIndexOf('/') + 1) + "-" + i, ensemble.connectString(), root, fleet);
            long t0 = System.nanoTime();
            Shardgate router = Shardgate.start(RouterConfig.parse(yaml));
            long started = System.nanoTime();
            open.add(router);
            routers.add(router);
            awaitReady(router);
            long ready = System.nanoTime();
            long heap = heapAfterGc();
            if (record) {
                report.router(
                        i,
                        millis(started - t0),
                        millis(ready - t0),
                        heap - heapBefore,
                        router.configuration().version());
            } else {
                report.baseRouter(i, heap - heapBefore);
            }
            heapBefore = heap;
        }
        return routers;
    }

    private String routerYaml(int index, String name, String zooKeeper, String root, FleetConfig fleet)
            throws Exception {
        return "server: {bind: 127.0.0.1, port: 0, http_port: 0, io_threads: 1, node_id: " + index
                + ", schema_tracking_interval_millis: 0, data_dir: \""
                + Files.createDirectories(work.resolve("routers").resolve(name)) + "\"}\n"
                + "zookeeper: {connect: \"" + zooKeeper + "\", root: " + root
                + ", session_timeout_millis: 30000, startup_timeout_millis: 60000}\n"
                + fleet.clusterYaml();
    }

    private static void awaitReady(Shardgate router) throws Exception {
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.httpPort() + "/ready"))
                .build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (HTTP.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() != 200) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("router on port " + router.mysqlPort() + " not ready in 120 s");
            }
            Thread.sleep(5);
        }
    }

    /** Heap of {@code settings.plans()} cached plans, one per table, on one router. */
    private void planCache(Shardgate router, FleetConfig fleet) throws InterruptedException {
        RoutingRules routing = router.routing();
        long before = settledHeap();
        int plans = Math.min(settings.plans(), fleet.tables());
        for (int i = 1; i <= plans; i++) {
            routing.plan(
                    Digest.of("SELECT c FROM " + FleetConfig.table(i) + " WHERE id = 1"),
                    FleetConfig.SCHEMA,
                    routing.current());
        }
        long after = settledHeap();
        report.planCache(plans, after - before);
    }

    /**
     * Publishes {@code settings.changes()} versions through the first router's store (each moves
     * one table to the next hostgroup) and times, for each router, the moment its store accepted
     * and the router swapped in the version (a listener added after the router's own runs after it),
     * from just before the publish; with the ensemble's traffic over the changes less its idle rate.
     */
    private void propagation(List<Shardgate> routers, FleetConfig fleet, ZooKeeperEnsemble ensemble) throws Exception {
        List<Map<Long, Long>> accepted = new ArrayList<>();
        AtomicInteger notSwapped = new AtomicInteger();
        for (Shardgate router : routers) {
            Map<Long, Long> times = new ConcurrentHashMap<>();
            accepted.add(times);
            router.ruleStore().addListener(v -> {
                times.put(v.number(), System.nanoTime());
                if (router.routing().current().version() < v.number()) {
                    notSwapped.incrementAndGet();
                }
            });
        }
        long idleNanos = TimeUnit.SECONDS.toNanos(settings.idleSeconds());
        ZooKeeperTraffic idleStart = ZooKeeperTraffic.read(ensemble);
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(idleNanos));
        ZooKeeperTraffic idle = ZooKeeperTraffic.read(ensemble).minus(idleStart);

        ZkRuleStore store = routers.get(0).ruleStore();
        double[] everyRouter = new double[settings.changes()];
        double[] eachRouter = new double[settings.changes() * routers.size()];
        double[] publish = new double[settings.changes()];
        long versionBytes = 0;
        String storeThreads = "shardgate-rule-store " + ROOT;
        long storeCpuStart = threadCpuNanos(storeThreads);
        ZooKeeperTraffic start = ZooKeeperTraffic.read(ensemble);
        long startNanos = System.nanoTime();
        for (int c = 0; c < settings.changes(); c++) {
            TreeMap<String, String> documents =
                    new TreeMap<>(store.current().orElseThrow().documents().sections());
            documents.put(ConfigDocuments.SCHEMAS, moveTable(documents.get(ConfigDocuments.SCHEMAS), c, fleet));
            ConfigDocuments next = ConfigDocuments.of(documents);
            versionBytes = ConfigSize.of(next);
            long basedOn = store.status().currentVersion();
            long t0 = System.nanoTime();
            long number = store.publish(basedOn, next).number();
            publish[c] = millis(System.nanoTime() - t0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            for (Map<Long, Long> times : accepted) {
                while (!times.containsKey(number)) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("version " + number + " did not reach every router in 120 s");
                    }
                    Thread.sleep(2);
                }
            }
            double slowest = 0;
            for (int r = 0; r < routers.size(); r++) {
                double ms = millis(accepted.get(r).get(number) - t0);
                eachRouter[c * routers.size() + r] = ms;
                slowest = Math.max(slowest, ms);
            }
            everyRouter[c] = slowest;
            Thread.sleep(settings.pauseMillis());
        }
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        // the store threads read, validate and swap in each version (the publisher's own validation
        // runs on this thread and is in the publish time instead)
        double cpuPerRouterChange =
                millis(threadCpuNanos(storeThreads) - storeCpuStart) / ((double) settings.changes() * routers.size());
        ZooKeeperTraffic changes = ZooKeeperTraffic.read(ensemble).minus(start);
        ZooKeeperTraffic net = changes.lessBackground(idle, idleNanos / 1e9, seconds);
        long last = store.status().currentVersion();
        int behind = 0;
        for (Shardgate router : routers) {
            if (router.routing().current().version() != last) {
                behind++;
            }
        }
        report.propagation(
                routers.size(),
                versionBytes,
                new Latencies(publish),
                new Latencies(everyRouter),
                new Latencies(eachRouter),
                notSwapped.get(),
                behind,
                cpuPerRouterChange,
                idle,
                idleNanos / 1e9,
                changes,
                net,
                seconds);
        overLimit(store, fleet);
    }

    /**
     * The schemas document with the {@code c}-th table from the end moved to the next hostgroup
     * (from the end: tables 1 and 2 carry the client load and stay where they are).
     */
    private static String moveTable(String schemas, int c, FleetConfig fleet) throws Exception {
        ArrayNode tree = (ArrayNode) JSON.readTree(schemas);
        ArrayNode tables = (ArrayNode) tree.get(0).get("tables");
        ObjectNode table = (ObjectNode) tables.get(tables.size() - 1 - c % (tables.size() - 2));
        int hostgroup = table.get("hostgroup").asInt();
        table.put("hostgroup", hostgroup % fleet.hostgroups() + 1);
        return JSON.writeValueAsString(tree);
    }

    /** What the store answers to a version over its bound: the requested shape, when it did not fit. */
    private void overLimit(ZkRuleStore store, FleetConfig fleet) throws Exception {
        if (fleet.tables() >= settings.tables()) {
            return;
        }
        FleetConfig wanted = new FleetConfig(
                fleet.hostgroups(),
                settings.tables(),
                fleet.servers(),
                fleet.poolMaxConnections(),
                fleet.unmultiplexedPool());
        ConfigDocuments documents = ClusterDocuments.of(RouterConfig.parse(routerYaml(0, "over", "", ROOT, wanted)));
        try {
            long number =
                    store.publish(store.status().currentVersion(), documents).number();
            report.overLimit("published as version " + number + " (unexpected)");
        } catch (InvalidConfigException e) {
            report.overLimit(String.join("; ", e.problems()));
        }
    }

    /**
     * Heap of routers with a two-hostgroup, two-table configuration (the part rules do not explain);
     * closed again, so they hold no backend connections later.
     */
    private void baseRouterHeap(ZooKeeperEnsemble ensemble, List<MariaDbServer> servers) throws Exception {
        FleetConfig small = new FleetConfig(
                2, 2, servers.stream().map(MariaDbServer::address).toList(), settings.pool(), settings.clients());
        List<AutoCloseable> base = new ArrayList<>();
        startRouters(small, ensemble, ROOT + "-small", settings.baseRouters(), base, false);
        for (AutoCloseable router : base) {
            router.close();
        }
    }

    /** Heap after GC once background work (schema tracking, registrations) has had 2 s to finish. */
    static long settledHeap() throws InterruptedException {
        heapAfterGc();
        Thread.sleep(2000);
        return heapAfterGc();
    }

    /** CPU time of this JVM's threads whose name starts with {@code prefix}, in nanoseconds. */
    static long threadCpuNanos(String prefix) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith(prefix)) {
                total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return total;
    }

    static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    static double millis(long nanos) {
        return nanos / 1e6;
    }
}
