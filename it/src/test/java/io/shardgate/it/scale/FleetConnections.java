package io.shardgate.it.scale;

import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The backend connections a shard sees as routers are added under client load: at each step more
 * routers each get {@code clients} sessions reading table 1 (hostgroup 1, multiplexed, pool of
 * {@code pool}) and {@code clients} reading table 2 (hostgroup 2, multiplexing off, pool of {@code
 * clients}); each statement holds its backend connection for {@code SLEEP(sleepMillis)}. The
 * servers' process lists are sampled every 250 ms.
 */
final class FleetConnections {
    private final Settings settings;
    private final FleetReport report;

    FleetConnections(Settings settings, FleetReport report) {
        this.settings = settings;
        this.report = report;
    }

    void measure(List<Shardgate> routers, FleetConfig fleet, List<MariaDbServer> servers, List<AutoCloseable> open)
            throws Exception {
        MariaDbServer multiplexed = FleetBackends.serverOf(fleet, servers, 1);
        MariaDbServer dedicated = FleetBackends.serverOf(fleet, servers, 2);
        double sleep = settings.sleepMillis() / 1000.0;
        List<ClientLoop> loads = new ArrayList<>();
        try (Connection one = FleetBackends.connect(multiplexed);
                Connection two = FleetBackends.connect(dedicated)) {
            report.serverLimits(FleetBackends.maxConnections(one), FleetBackends.maxConnections(two));
            // without client load: the logins the routers' own background work makes (each router's
            // two-phase resolver runs XA RECOVER on every hostgroup's writer, on a new connection,
            // every 2 s)
            long attempts = FleetBackends.connectionAttempts(one) + FleetBackends.connectionAttempts(two);
            long idleStart = System.nanoTime();
            Thread.sleep(settings.stepSeconds() * 2000L);
            double idleSeconds = (System.nanoTime() - idleStart) / 1e9;
            long idleAttempts =
                    FleetBackends.connectionAttempts(one) + FleetBackends.connectionAttempts(two) - attempts - 4;
            report.idleLogins(routers.size(), fleet.hostgroups(), servers.size(), idleAttempts / idleSeconds);
            int loaded = 0;
            for (int step : Arrays.stream(settings.steps().split(","))
                    .mapToInt(Integer::parseInt)
                    .toArray()) {
                int k = Math.min(step, routers.size());
                for (; loaded < k; loaded++) {
                    int port = routers.get(loaded).mysqlPort();
                    ClientLoop a = new ClientLoop(
                            "mux-r" + loaded,
                            port,
                            settings.clients(),
                            "SELECT c, SLEEP(" + sleep + ") FROM " + FleetConfig.table(1) + " WHERE id = 1");
                    ClientLoop b = new ClientLoop(
                            "ded-r" + loaded,
                            port,
                            settings.clients(),
                            "SELECT c, SLEEP(" + sleep + ") FROM " + FleetConfig.table(2) + " WHERE id = 1");
                    open.add(a);
                    open.add(b);
                    loads.add(a);
                    loads.add(b);
                }
                Thread.sleep(settings.stepSeconds() * 1000L); // warm-up: pools grow to what the load needs
                long statementsBefore = statements(loads);
                int maxOne = 0;
                int maxTwo = 0;
                int maxThreads = 0;
                long end = System.nanoTime() + settings.stepSeconds() * 1_000_000_000L;
                while (System.nanoTime() < end) {
                    maxOne = Math.max(maxOne, FleetBackends.routerSessions(one));
                    maxTwo = Math.max(maxTwo, FleetBackends.routerSessions(two));
                    maxThreads = Math.max(maxThreads, FleetBackends.threadsConnected(one));
                    Thread.sleep(250);
                }
                report.sessionKinds(k, FleetBackends.routerSessionKinds(one));
                double rate = (statements(loads) - statementsBefore) / (double) settings.stepSeconds();
                List<String> failures = new ArrayList<>();
                for (ClientLoop l : loads) {
                    failures.addAll(l.failures());
                }
                report.connections(
                        k,
                        k * settings.clients(),
                        k * fleet.poolMaxConnections(),
                        maxOne,
                        maxThreads,
                        k * fleet.unmultiplexedPool(),
                        maxTwo,
                        rate,
                        failures);
            }
        }
        for (ClientLoop l : loads) {
            l.close();
        }
    }

    private static long statements(List<ClientLoop> loads) {
        return loads.stream().mapToLong(ClientLoop::statements).sum();
    }
}
