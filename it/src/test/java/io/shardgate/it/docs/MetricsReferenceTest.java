package io.shardgate.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Meter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.shardgate.cache.CacheConfig;
import io.shardgate.cache.CacheKey;
import io.shardgate.cache.CacheMode;
import io.shardgate.cache.CachePolicy;
import io.shardgate.cache.Lookup;
import io.shardgate.cache.ResultCache;
import io.shardgate.it.Repository;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.MonitorSettings;
import io.shardgate.router.config.ReaderConfig;
import io.shardgate.router.metrics.RouterMetrics;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.sharding.digest.Digest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * a real {@link ResultCache} (with one query rule's meters) and a real {@link RouterMetrics}
 * registering into live registries.
 */
class MetricsReferenceTest {
    private static final List<String> MODULES =
            List.of("protocol", "sharding", "merge", "cache", "admin", "router-core");
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
        names.addAll(LiveRegistry.read().meters());
        return names;
    }

    /**
     * The meters of the components whose names are computed, as a router's registry holds them:
     * a {@link ResultCache} and a {@link RouterMetrics} exercised the way a started router does
     * (the cache's totals and, after a lookup under query rule 0, that rule's meters; up-front
     * counters, the client connection gauge, an error counter, the gauges of a writer's and a
     * reader's backend pool; pools are lazy and the monitor is off, so nothing connects to the
     * hostgroup's servers), and the sample names its Prometheus scrape shows for them.
     */
    private record LiveRegistry(Set<String> meters, Set<String> samples) {
        private static final Pattern SAMPLE = Pattern.compile("(?m)^(shardgate_\\w+)[{ ]");

        static LiveRegistry read() {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            HostgroupConfig hostgroup = new HostgroupConfig(
                    10,
                    "127.0.0.1:3306",
                    List.of(ReaderConfig.of("127.0.0.1:3307")),
                    "u",
                    "",
                    null,
                    new MonitorSettings(false, null, null, null),
                    null,
                    null,
                    null,
                    null);
            CacheConfig enabled = new CacheConfig(
                    true,
                    CacheConfig.DEFAULTS.maxBytes(),
                    CacheConfig.DEFAULTS.maxEntryBytes(),
                    Duration.ofSeconds(30));
            try (ResultCache cache = new ResultCache(enabled, registry);
                    Hostgroups hostgroups =
                            new Hostgroups(List.of(hostgroup), new BackendConnector(NioSocketChannel.class, 1000))) {
                // a cacheable read under query rule 0 creates that rule's meters, as in a router
                CachePolicy rule0 = new CachePolicy(0, Duration.ofSeconds(1), false);
                Lookup lookup = cache.lookup(
                        CacheKey.forQuery("s", Digest.of("SELECT c FROM t WHERE id = 1"), "u", rule0, "v"),
                        rule0,
                        Set.of(),
                        CacheMode.USE);
                assertThat(lookup).isInstanceOf(Lookup.Fill.class);
                cache.abandon(((Lookup.Fill) lookup).ticket());
                RouterMetrics metrics = new RouterMetrics(registry);
                metrics.clientConnections(() -> 0);
                metrics.error(1040);
                metrics.pools(hostgroups);
                Set<String> meters = new TreeSet<>();
                registry.getMeters().stream()
                        .map(Meter::getId)
                        .map(Meter.Id::getName)
                        .forEach(meters::add);
                assertThat(meters)
                        .as("a live RouterMetrics registers its error counter and pool gauges")
                        .contains(
                                "shardgate.errors",
                                "shardgate.pool.connections.open",
                                "shardgate.cache.hits",
                                "shardgate.cache.rule.hits");
                Set<String> samples = new TreeSet<>();
                Matcher m = SAMPLE.matcher(registry.scrape());
                while (m.find()) {
                    samples.add(m.group(1));
                }
                return new LiveRegistry(meters, samples);
            } finally {
                registry.close();
            }
        }
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
        // Micrometer's convention for the meters registered elsewhere; the scrape itself for those a
        // live registry holds (the Prometheus client renames some: a gauge ending in .created loses it)
        LiveRegistry live = LiveRegistry.read();
        Set<String> prometheusNames = new TreeSet<>(live.samples());
        DOC.rows().forEach((name, cells) -> {
            String base = name.replace('.', '_');
            if (!live.meters().contains(name)) {
                prometheusNames.add(cells[0].equals("counter") ? base + "_total" : base);
            }
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
        assertThat(prometheusNames)
                .as("series of documented meters as /metrics names them vs the dashboard's queries")
                .containsAll(queried);
    }
}
