package io.shardgate.it.scale;

import io.shardgate.admin.store.ZkRuleStore;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The fleet-scale benchmark's markdown report, filled section by section as the runs finish. */
final class FleetReport {
    private static final double MIB = 1024.0 * 1024.0;

    private final Settings settings;
    private final String loadBefore = loadAverage();
    private final List<String> size = new ArrayList<>();
    private final List<String> routers = new ArrayList<>();
    private final List<Long> heaps = new ArrayList<>();
    private final List<Double> startups = new ArrayList<>();
    private final List<Long> baseHeaps = new ArrayList<>();
    private final List<String> plans = new ArrayList<>();
    private final List<String> propagation = new ArrayList<>();
    private final List<String> connections = new ArrayList<>();
    private String limits = "";
    private String fleetHeap = "";
    private String idleLogins = "";
    private final List<String> sessionKinds = new ArrayList<>();

    FleetReport(Settings settings) {
        this.settings = settings;
    }

    void size(
            int hostgroups,
            int tables,
            long emptyTwo,
            long emptyAll,
            long wanted,
            double perHostgroup,
            double perTable,
            int fits,
            long fitsBytes) {
        size.add("| configuration | bytes stored (documents' names + UTF-8 text) |");
        size.add("| --- | ---: |");
        size.add("| 2 hostgroups, 0 tables | " + emptyTwo + " |");
        size.add("| " + hostgroups + " hostgroups, 0 tables | " + emptyAll + " |");
        size.add("| " + hostgroups + " hostgroups, " + tables + " tables | " + wanted + " |");
        size.add("| " + hostgroups + " hostgroups, " + fits + " tables (the most that fit) | " + fitsBytes + " |");
        size.add("");
        size.add(String.format(
                "Per hostgroup: %.1f bytes; per table: %.1f bytes; bound: `ZkRuleStore.MAX_VERSION_BYTES` = %d."
                        + " %s",
                perHostgroup,
                perTable,
                ZkRuleStore.MAX_VERSION_BYTES,
                wanted <= ZkRuleStore.MAX_VERSION_BYTES
                        ? "The requested configuration fits."
                        : "The requested configuration does NOT fit (" + String.format("%.2f", wanted / 1024.0)
                                + " KiB > 900 KiB): the fleet below runs with " + fits + " tables."));
    }

    void overLimit(String answer) {
        size.add("");
        size.add("Publishing the requested configuration through a router's store: " + answer);
    }

    void router(int index, double startMillis, double readyMillis, long heapDelta, long version) {
        routers.add(String.format(
                "| %d | %.0f | %.0f | %.1f | %d |", index + 1, startMillis, readyMillis, heapDelta / MIB, version));
        heaps.add(heapDelta);
        startups.add(readyMillis);
    }

    void fleetHeap(int count, long heapDelta) {
        fleetHeap = String.format(
                "All %d routers together: heap after GC grew by %.1f MiB, %.1f MiB per router.",
                count, heapDelta / MIB, heapDelta / MIB / count);
    }

    void baseRouter(int index, long heapDelta) {
        baseHeaps.add(heapDelta);
    }

    void planCache(int count, long heapDelta) {
        plans.add(String.format(
                "%d distinct statements planned on router 1 (one per table, `SELECT c FROM tNNNNN WHERE id = 1`,"
                        + " through `RoutingRules.plan`, the router's own plan cache): heap after GC grew by"
                        + " %.2f MiB, %.0f bytes per cached plan.",
                count, heapDelta / MIB, heapDelta / (double) count));
    }

    void propagation(
            int routerCount,
            long versionBytes,
            Latencies publish,
            Latencies everyRouter,
            Latencies eachRouter,
            int notSwapped,
            int behind,
            double cpuPerRouterChange,
            ZooKeeperTraffic idle,
            double idleSeconds,
            ZooKeeperTraffic changes,
            ZooKeeperTraffic net,
            double seconds) {
        int n = everyRouter.count();
        propagation.add(String.format(
                "%d changes (each moves one table to the next hostgroup; a version of %d bytes), published"
                        + " one at a time through router 1's store, %d ms apart; %d routers.",
                n, versionBytes, settings.pauseMillis(), routerCount));
        propagation.add("");
        propagation.add("| ms (p50 / p99 / max) | |");
        propagation.add("| --- | --- |");
        propagation.add("| publish (validate + ZooKeeper multi-op) | " + publish.summary() + " |");
        propagation.add("| until the last router runs the version | " + everyRouter.summary() + " |");
        propagation.add("| until a router runs it (each router, " + eachRouter.count() + " samples) | "
                + eachRouter.summary() + " |");
        propagation.add("");
        propagation.add(String.format(
                "CPU time of the routers' rule-store threads (read the version from ZooKeeper, parse and"
                        + " validate it whole, build and swap the rules): %.0f ms per router and change. The routers"
                        + " share this machine's 2 cores, so a change reaches the last router only after about"
                        + " routers x that CPU time, divided by the cores free; on a fleet where each router has"
                        + " its own cores, it is about one router's CPU time plus the ZooKeeper round trips.",
                cpuPerRouterChange));
        propagation.add("");
        propagation.add("Listener fired before the router's rules had the version: " + notSwapped
                + " times; routers not on the last version at the end: " + behind + ".");
        propagation.add("");
        propagation.add("ZooKeeper client traffic, all three members (quorum traffic between members not counted):");
        propagation.add("");
        propagation.add("| | packets in | packets out | bytes in | response bytes | watch bytes |");
        propagation.add("| --- | ---: | ---: | ---: | ---: | ---: |");
        propagation.add(idle.row(String.format("idle, per second (%.0f s)", idleSeconds), idleSeconds));
        propagation.add(changes.row(String.format("during the changes, per change (%.1f s)", seconds), n));
        propagation.add(net.row("per change, idle rate subtracted", n));
        propagation.add(net.row("per change and router", (double) n * routerCount));
        propagation.add("");
        propagation.add(String.format(
                "Response bytes per change and router / version bytes = %.2f.",
                net.responseBytes() / ((double) n * routerCount) / versionBytes));
    }

    void serverLimits(int one, int two) {
        limits = "Servers' max_connections: " + one + " (hostgroup 1's) and " + two + " (hostgroup 2's).";
    }

    void idleLogins(int routerCount, int hostgroups, int serverCount, double perSecond) {
        idleLogins = String.format(
                "Without client load, the %d routers' own connections (logins) to the %d servers together:"
                        + " %.0f per second, %.3f per router and hostgroup per second (the two-phase resolver's"
                        + " `XA RECOVER` on every hostgroup's writer every 2 s, each on a new connection;"
                        + " the connection attempts counter `Connections`, our 4 status reads subtracted).",
                routerCount, serverCount, perSecond, perSecond / routerCount / hostgroups);
    }

    void sessionKinds(int routerCount, String kinds) {
        sessionKinds.add(
                "- " + routerCount + " routers, hostgroup 1's server (command/state/database: sessions): " + kinds);
    }

    void connections(
            int routerCount,
            int clients,
            int bound,
            int seen,
            int threads,
            int dedicatedBound,
            int dedicatedSeen,
            double rate,
            List<String> failures) {
        connections.add(String.format(
                "| %d | %d | %d | %d | %d | %d | %d | %.0f | %d%s |",
                routerCount,
                clients,
                bound,
                seen,
                threads,
                dedicatedBound,
                dedicatedSeen,
                rate,
                failures.size(),
                failures.isEmpty() ? "" : ": " + failures.get(0).replace('|', '/')));
    }

    String markdown() {
        List<String> md = new ArrayList<>();
        md.add("# Fleet scale: routers on one ZooKeeper ensemble, " + Instant.now());
        md.add("");
        md.add("Command: `" + System.getProperty("fleet.command", "benchmarks/fleet/fleet-scale.sh") + "` with " + "`"
                + settings.describe() + "`");
        md.add("");
        md.add("Machine: " + Runtime.getRuntime().availableProcessors() + " CPUs, "
                + String.format("%.1f", physicalMemory() / (1024.0 * MIB)) + " GiB RAM, "
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + "; load average before "
                + loadBefore + ", after " + loadAverage() + " (shared with other work)");
        md.add("JDK: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + ", max heap "
                + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB; commit "
                + System.getProperty("fleet.commit", "unknown"));
        md.add("All routers, the three ZooKeeper members and the clients run in one JVM (each router with"
                + " io_threads 1, schema tracking at start only, health checks off); MariaDB servers are"
                + " separate processes.");
        md.add("");
        md.add("## Stored configuration");
        md.add("");
        md.addAll(size);
        md.add("");
        md.add("## Start-up and heap per router");
        md.add("");
        md.add("Routers started one after the other, each with the full YAML (the first seeds ZooKeeper, the"
                + " others adopt the stored version). Start: `Shardgate.start` returns; ready: `/ready` answers"
                + " 200 (both from before the YAML is parsed). Heap: used heap after `System.gc()` with this"
                + " router running minus before it started.");
        md.add("");
        md.add("| router | start ms | ready ms | heap + MiB | version |");
        md.add("| ---: | ---: | ---: | ---: | ---: |");
        md.addAll(routers);
        if (heaps.size() > 1) {
            md.add("");
            md.add(String.format(
                    "Routers 2..%d: heap per router median %.1f MiB; ready median %.0f ms (router 1 also seeds"
                            + " ZooKeeper).",
                    heaps.size(),
                    median(heaps.subList(1, heaps.size())) / MIB,
                    medianD(startups.subList(1, startups.size()))));
        }
        md.add(fleetHeap);
        if (!baseHeaps.isEmpty()) {
            md.add(String.format(
                    "The same measured before, for %d routers with 2 hostgroups and 2 tables (another root, closed"
                            + " again): %s MiB; median %.1f MiB. The difference is the heap the rules take per router.",
                    baseHeaps.size(),
                    baseHeaps.stream().map(b -> String.format("%.1f", b / MIB)).toList(),
                    median(baseHeaps) / MIB));
        }
        md.add("");
        md.add("## Plan cache");
        md.add("");
        md.addAll(plans);
        md.add("");
        md.add("## Rule change propagation and ZooKeeper traffic");
        md.add("");
        md.addAll(propagation);
        md.add("");
        md.add("## Backend connections per shard as routers are added");
        md.add("");
        md.add(String.format(
                "Each router gets %d client sessions on hostgroup 1 (multiplexed, `pool.max_connections: %d`)"
                        + " and %d on hostgroup 2 (`multiplexing: false`, pool %d); each statement holds its"
                        + " backend connection %d ms (`SELECT c, SLEEP(..)`). Maxima over %d s sampled every"
                        + " 250 ms after %d s of warm-up; sessions = the servers' process list rows of the"
                        + " router's account.",
                settings.clients(),
                settings.pool(),
                settings.clients(),
                settings.clients(),
                settings.sleepMillis(),
                settings.stepSeconds(),
                settings.stepSeconds()));
        md.add(limits);
        md.add("");
        md.add(idleLogins);
        md.add("");
        md.add("| routers | clients on hg 1 | bound routers x pool | hg 1 server: router sessions | hg 1 server:"
                + " Threads_connected | hg 2 bound (routers x clients) | hg 2 server: router sessions |"
                + " statements/s (both) | client errors |");
        md.add("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
        md.addAll(connections);
        md.add("");
        md.add("The router account's sessions at the end of each step, by kind:");
        md.add("");
        md.addAll(sessionKinds);
        md.add("");
        return String.join("\n", md) + "\n";
    }

    private static double median(List<Long> values) {
        return medianD(values.stream().map(Long::doubleValue).toList());
    }

    private static double medianD(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static long physicalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return 0;
    }

    private static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException e) {
            return "unknown";
        }
    }
}
