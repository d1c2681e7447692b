package io.shardgate.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardgate.cache.CacheConfig;
import io.shardgate.cache.ResultCache;
import io.shardgate.it.Repository;
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
 * ({@code Counter.builder("name")} and the like) and, for the result cache whose names are built
 * from a prefix, from a real {@link ResultCache} registering into a registry.
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
        // names built at run time: only the cache's, whose totals a real cache registers here
        assertThat(new TreeSet<>(computed))
                .as("meters with computed names; read them from a live registry in this test")
                .containsOnly("CacheMeters.java");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ResultCache cache = new ResultCache(CacheConfig.DEFAULTS, registry)) {
            registry.getMeters().stream()
                    .map(Meter::getId)
                    .map(Meter.Id::getName)
                    .forEach(names::add);
            assertThat(cache.enabled()).isFalse();
        }
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
