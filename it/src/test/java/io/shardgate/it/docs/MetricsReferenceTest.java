package io.shardgate.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.shardgate.cache.CacheConfig;
import io.shardgate.cache.ResultCache;
import io.shardgate.it.Repository;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.metrics.RouterMetrics;
import io.shardgate.router.routing.Hostgroups;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/metrics.md lists exactly the meters Shardgate registers, and the Grafana dashboard of the
 * Compose cluster queries only documented meters. Meters come from the main sources
 * ({@code Counter.builder("name")} and the like) and, for the components whose names are built at
 * run time (the result cache's from a prefix, the router's per error code and backend pool), from
 * a real {@link ResultCache} and a real {@link RouterMetrics} registering into live registries.
 */
class MetricsReferenceTest {
    private static final List<String> MODULES = List.of("protocol", "sharding", "cache", "admin", "router-core");
    private static final Pattern BUILDER = Pattern.compile(
            "\\b(Counter|Gauge|Timer|FunctionCounter|FunctionTimer|DistributionSummary|LongTaskTimer|TimeGauge)"
                    + "\\.builder\\(\\s*(\"([^\"]+)\")?");

    private static final ReferenceTable DOC = ReferenceTable.of("metrics.md");

    private static Set<String> registeredMeters() throws IOException {
        Set<String> names = new TreeSet<>();
        List<String> computed = new ArrayList<>();
        for (String module : MODULES) {
            try (Stream<Path> files = Files.walk(Repository.file(module + "/src/main/java"))) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    Matcher m = BUILDER.matcher(Files.readString(file));
                    while (m.find()) {
                        if (m.group(3) != null) {
                            names.add(m.group(3));
                        } else {
                            computed.add(file.getFileName().toString());
                        }
                    }
                }
            }
        }
        // names built at run time: read from live registries that the components with such
        // names register into, each exercised so that every meter it can register exists
        assertThat(new TreeSet<>(computed))
                .as("meters with computed names; read them from a live registry in this test")
                .containsOnly("CacheMeters.java", "RouterMetrics.java");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ResultCache cache = new ResultCache(CacheConfig.DEFAULTS, registry)) {
            names.addAll(meterNames(registry));
            assertThat(cache.enabled()).isFalse();
        }
        names.addAll(routerMeters());
        return names;
    }

    /**
     * Every meter a {@link RouterMetrics} registers once the router has started: its up-front
     * counters, the client connection gauge, an error counter and the gauges of one backend pool
     * (pools are lazy: nothing connects to the hostgroup's server).
     */
    private static Set<String> routerMeters() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RouterMetrics metrics = new RouterMetrics(registry);
        metrics.clientConnections(() -> 0);
        metrics.error(1040);
        HostgroupConfig hostgroup = new HostgroupConfig(10, "127.0.0.1:3306", List.of(), "u", "", null);
        try (Hostgroups hostgroups =
                new Hostgroups(List.of(hostgroup), new BackendConnector(NioSocketChannel.class, 1000))) {
            metrics.pools(hostgroups);
            Set<String> names = meterNames(registry);
            assertThat(names)
                    .as("a live RouterMetrics registers its pool gauges")
                    .contains("shardgate.pool.connections.open", "shardgate.errors");
            return names;
        } finally {
            registry.close();
        }
    }

    private static Set<String> meterNames(MeterRegistry registry) {
        Set<String> names = new TreeSet<>();
        registry.getMeters().stream().map(Meter::getId).map(Meter.Id::getName).forEach(names::add);
        return names;
    }

    @Test
    void documentsExactlyTheRegisteredMeters() throws Exception {
        Set<String> registered = registeredMeters();
        assertThat(registered).contains("shardgate.cache.hits", "shardgate.config.version");
        assertThat(new TreeSet<>(DOC.rows().keySet()))
                .as("meters in docs/metrics.md vs meters the sources register")
                .isEqualTo(registered);
    }

    @Test
    void theComposeDashboardQueriesOnlyDocumentedMeters() throws Exception {
        Set<String> prometheusNames = new TreeSet<>();
        DOC.rows().forEach((name, cells) -> {
            String base = name.replace('.', '_');
            prometheusNames.add(cells[0].equals("counter") ? base + "_total" : base);
        });
        JsonNode dashboard = new ObjectMapper()
                .readTree(Repository.file("deploy/compose/grafana/dashboards/shardgate.json")
                        .toFile());
        List<String> queried = new ArrayList<>();
        dashboard.findValues("expr").forEach(expr -> {
            Matcher m = Pattern.compile("\\bshardgate_\\w+").matcher(expr.asText());
            while (m.find()) {
                queried.add(m.group());
            }
        });
        assertThat(queried).isNotEmpty();
        assertThat(prometheusNames).containsAll(queried);
    }
}
