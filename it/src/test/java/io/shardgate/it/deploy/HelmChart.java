package io.shardgate.it.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.shardgate.it.Repository;
import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * deploy/helm/shardgate rendered by the real {@code helm template}: the manifests of one value set,
 * as JSON trees, with look-ups by kind and name.
 */
final class HelmChart {
    static final Path DIR = Repository.file("deploy/helm/shardgate");
    static final String RELEASE = "sg";
    static final String NAMESPACE = "shop";
    static final YAMLMapper YAML = new YAMLMapper();
    /** The Kubernetes version {@code helm template} renders for. */
    static final String KUBE_VERSION = "1.33.0";

    private HelmChart() {}

    /** The chart's value sets under ci/, which the tests render and lint. */
    static List<Path> valueSets() {
        return List.of(
                DIR.resolve("ci/default-values.yaml"),
                DIR.resolve("ci/external-zookeeper-values.yaml"),
                DIR.resolve("ci/existing-secret-values.yaml"));
    }

    /** Runs helm with {@code args}; the chart directory is the working directory. */
    static ToolRun helm(List<String> args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ExternalTool.HELM.require().toString());
        command.addAll(args);
        return ToolRun.run(Duration.ofMinutes(2), command, Path.of("/dev/null"), DIR);
    }

    /** {@code helm template} of the chart with these value files and --set pairs; fails the test on an error. */
    static Rendered render(List<Path> values, List<String> sets) throws IOException, InterruptedException {
        ToolRun run = helm(templateArgs(values, sets));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        return Rendered.parse(run.stdout());
    }

    static List<String> templateArgs(List<Path> values, List<String> sets) {
        // a Helm built by `go install` carries no Kubernetes version of its own (it assumes 1.20)
        List<String> args = new ArrayList<>(
                List.of("template", RELEASE, ".", "--namespace", NAMESPACE, "--kube-version", KUBE_VERSION));
        values.forEach(v -> args.addAll(List.of("--values", v.toString())));
        sets.forEach(s -> args.addAll(List.of("--set", s)));
        return args;
    }

    /** The manifests of one rendering. */
    record Rendered(String text, List<JsonNode> manifests) {
        static Rendered parse(String text) throws IOException {
            List<JsonNode> out = new ArrayList<>();
            try (MappingIterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(text)) {
                while (docs.hasNext()) {
                    JsonNode doc = docs.next();
                    if (doc != null && !doc.isNull() && !doc.isEmpty()) {
                        out.add(doc);
                    }
                }
            }
            return new Rendered(text, out);
        }

        List<JsonNode> ofKind(String kind) {
            return manifests.stream()
                    .filter(m -> m.path("kind").asText().equals(kind))
                    .toList();
        }

        JsonNode get(String kind, String name) {
            return manifests.stream()
                    .filter(m -> m.path("kind").asText().equals(kind)
                            && m.at("/metadata/name").asText().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in:\n" + text));
        }
    }
}
