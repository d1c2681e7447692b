package io.shardgate.it.control;

import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code /metrics} page as the Prometheus project's own Python client library parses it ({@code
 * prometheus_client.parser.text_string_to_metric_families}): families with their type, and samples
 * with labels and values. No Java library parses the text format (the Java clients only write it),
 * and a hand-written parser would check nothing. The library comes from PyPI ({@code
 * prometheus-client}), installed by the tests into their Python venv ({@link ExternalTool}).
 */
final class PrometheusScrape {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PARSER = String.join(
            "\n",
            "import json, sys",
            "from prometheus_client.parser import text_string_to_metric_families",
            "out = []",
            "with open(sys.argv[1]) as f:",
            "    for family in text_string_to_metric_families(f.read()):",
            "        for s in family.samples:",
            "            out.append({'family': family.name, 'type': family.type, 'name': s.name,",
            "                        'labels': s.labels, 'value': repr(float(s.value))})",
            "print(json.dumps(out))",
            "");

    /** One sample line. */
    record Sample(String family, String type, String name, Map<String, String> labels, double value) {}

    private final List<Sample> samples;

    private PrometheusScrape(List<Sample> samples) {
        this.samples = samples;
    }

    /** Parses {@code text}; fails the test when the parser refuses it; skips it when Python cannot be had. */
    static PrometheusScrape parse(String text) throws Exception {
        Path python = ExternalTool.PROMETHEUS_CLIENT.require();
        Path page = Files.createTempFile("metrics-", ".txt");
        Path script = Files.createTempFile("parse-metrics-", ".py");
        try {
            Files.writeString(page, text);
            Files.writeString(script, PARSER);
            ToolRun run =
                    ToolRun.run(Duration.ofMinutes(1), List.of(python.toString(), script.toString(), page.toString()));
            if (run.exitCode() != 0) {
                fail("the Prometheus text parser refused /metrics: " + run.stderr());
            }
            List<Sample> samples = new ArrayList<>();
            for (JsonNode s : JSON.readTree(run.stdout())) {
                Map<String, String> labels = new LinkedHashMap<>();
                s.get("labels")
                        .fields()
                        .forEachRemaining(
                                e -> labels.put(e.getKey(), e.getValue().asText()));
                samples.add(new Sample(
                        s.get("family").asText(),
                        s.get("type").asText(),
                        s.get("name").asText(),
                        labels,
                        number(s.get("value").asText())));
            }
            return new PrometheusScrape(samples);
        } finally {
            Files.deleteIfExists(page);
            Files.deleteIfExists(script);
        }
    }

    /** Python's repr of a float: digits, inf, -inf or nan. */
    private static double number(String repr) {
        return repr.equals("nan") ? Double.NaN : Double.parseDouble(repr.replace("inf", "Infinity"));
    }

    /** The type of a family (counter, gauge, histogram...), by its name without suffixes. */
    String type(String family) {
        return samples.stream()
                .filter(s -> s.family().equals(family))
                .map(Sample::type)
                .findFirst()
                .orElseGet(() -> fail("no family " + family));
    }

    /** Samples named {@code name} whose labels include {@code labels}, in page order. */
    List<Sample> samples(String name, Map<String, String> labels) {
        return samples.stream()
                .filter(s -> s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet()))
                .toList();
    }

    /** The value of the one sample named {@code name} with exactly these labels (the test fails otherwise). */
    double value(String name, Map<String, String> labels) {
        List<Sample> found = exactly(name, labels);
        if (found.size() != 1) {
            fail("expected one sample " + name + labels + ", found " + found);
        }
        return found.get(0).value();
    }

    /** Like {@link #value}, 0 when there is no such sample yet. */
    double valueOrZero(String name, Map<String, String> labels) {
        List<Sample> found = exactly(name, labels);
        return found.isEmpty() ? 0 : value(name, labels);
    }

    private List<Sample> exactly(String name, Map<String, String> labels) {
        return samples.stream()
                .filter(s -> s.name().equals(name) && s.labels().equals(labels))
                .toList();
    }
}
