package io.shardgate.it.deploy;

import static io.shardgate.it.deploy.HelmChart.NAMESPACE;
import static io.shardgate.it.deploy.HelmChart.RELEASE;
import static io.shardgate.it.deploy.HelmChart.YAML;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardgate.it.Repository;
import io.shardgate.it.deploy.HelmChart.Rendered;
import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.config.UserConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/helm/shardgate, offline: {@code helm lint} and {@code helm template} of each value set
 * under ci/, every rendered manifest validated against the Kubernetes API's JSON schemas of the
 * oldest and newest versions {@code kubernetes-validate} bundles, and the rendered objects checked
 * against each other and against the router: the configuration each pod assembles (with the
 * chart's own start script) is accepted by the router's loader with a node_id of its own, probes
 * ask the router's HTTP paths, Services and budgets select the router pods.
 */
class HelmChartTest {
    private static final String FULLNAME = RELEASE + "-shardgate";
    /** Oldest and newest schema sets of kubernetes-validate 1.37.0 (the chart says kubeVersion >=1.25). */
    private static final List<String> KUBERNETES_VERSIONS = List.of("1.25.0", "1.36.0");

    @TempDir
    Path tmp;

    /** Every test needs helm: asked here, so a missing one is reported against this class. */
    @BeforeEach
    void requireHelm() {
        ExternalTool.HELM.require();
    }

    private static Rendered render(String valueSet, String... sets) throws Exception {
        return HelmChart.render(List.of(HelmChart.DIR.resolve("ci/" + valueSet)), List.of(sets));
    }

    @Test
    void lintsWithEveryValueSet() throws Exception {
        for (Path values : HelmChart.valueSets()) {
            ToolRun lint = HelmChart.helm(List.of("lint", "--strict", ".", "--values", values.toString()));
            assertThat(lint.exitCode()).as(lint.toString()).isZero();
            assertThat(lint.stdout()).as(lint.toString()).contains("0 chart(s) failed");
        }
    }

    @Test
    void everyRenderedManifestValidatesAgainstTheKubernetesSchemas() throws Exception {
        Path validator = ExternalTool.KUBERNETES_VALIDATE.require();
        for (Path values : HelmChart.valueSets()) {
            Rendered rendered = HelmChart.render(List.of(values), List.of());
            Path dir = Files.createDirectories(tmp.resolve(values.getFileName().toString()));
            List<String> files = new ArrayList<>();
            int i = 0;
            for (JsonNode manifest : rendered.manifests()) {
                // the Prometheus Operator's CRD is no part of the Kubernetes API: checked below instead
                if (manifest.path("kind").asText().equals("ServiceMonitor")) {
                    continue;
                }
                Path file = dir.resolve((i++) + "-" + manifest.path("kind").asText() + ".yaml");
                YAML.writeValue(file.toFile(), manifest);
                files.add(file.toString());
            }
            assertThat(files).as(values + " renders manifests").hasSizeGreaterThanOrEqualTo(6);
            for (String version : KUBERNETES_VERSIONS) {
                List<String> command = new ArrayList<>(List.of(validator.toString(), "--strict", "-k", version));
                command.addAll(files);
                ToolRun run = ToolRun.run(Duration.ofMinutes(2), command);
                assertThat(run.exitCode())
                        .as(values + " on Kubernetes " + version + ":\n" + run)
                        .isZero();
                assertThat(run.stdout().lines().filter(line -> line.contains(" passed for resource ")))
                        .as("every manifest checked against a schema (a kind without one only warns)\n" + run)
                        .hasSize(files.size());
                assertThat(run.stdout() + run.stderr()).as(run.toString()).doesNotContain("WARN", "ERROR");
            }
        }
    }

    @Test
    void eachRouterPodRunsTheBootstrapConfigWithItsOwnNodeId() throws Exception {
        for (String valueSet : List.of("default-values.yaml", "external-zookeeper-values.yaml")) {
            Rendered rendered = render(valueSet);
            JsonNode values =
                    YAML.readTree(HelmChart.DIR.resolve("ci/" + valueSet).toFile());
            JsonNode router = rendered.get("StatefulSet", FULLNAME);
            JsonNode container = router.at("/spec/template/spec/containers/0");
            int replicas = router.at("/spec/replicas").asInt();
            int offset = values.path("nodeIdOffset").asInt(0);
            Set<Integer> nodeIds = new TreeSet<>();
            for (int ordinal = 0; ordinal < replicas; ordinal++) {
                RouterConfig config = RouterConfig.load(assemble(rendered, FULLNAME + "-" + ordinal, offset));
                assertThat(config.server().nodeId()).isEqualTo(ordinal + offset);
                nodeIds.add(config.server().nodeId());
                assertThat(config.server().bind()).isEqualTo("0.0.0.0");
                assertThat(config.server().dataDir()).isEqualTo(mountPath(container, "data"));
                Map<String, Integer> ports = new HashMap<>();
                container
                        .path("ports")
                        .forEach(p -> ports.put(
                                p.path("name").asText(), p.path("containerPort").asInt()));
                assertThat(ports)
                        .containsExactlyInAnyOrderEntriesOf(Map.of(
                                "mysql", config.server().port(),
                                "admin", config.server().adminPort(),
                                "http", config.server().httpPort()));
                assertThat(config.server().drainTimeoutMillis())
                        .isEqualTo(1000
                                * values.at("/drain/transactionGraceSeconds").asInt(30));
                assertThat(config.zookeeper().embedded())
                        .as("several routers must share one ZooKeeper")
                        .isFalse();
                assertThat(config.rules(1).schemas()).isNotEmpty();
                for (HostgroupConfig hostgroup : config.hostgroups()) {
                    assertThat(hostgroup.password())
                            .isEqualTo(values.at("/credentials/backendPassword").asText());
                    assertThat(hostgroup.user())
                            .isEqualTo(values.at("/backend/user").asText("shardgate"));
                }
                List<String> userNames =
                        config.users().stream().map(UserConfig::name).toList();
                List<String> expectedUsers = new ArrayList<>();
                values.at("/credentials/users")
                        .forEach(u -> expectedUsers.add(u.path("name").asText()));
                assertThat(userNames).containsExactlyElementsOf(expectedUsers);
                assertThat(config.admin().users().size())
                        .isEqualTo(values.at("/credentials/adminUsers").size());
            }
            assertThat(nodeIds).as("distinct node ids").hasSize(replicas);
            JsonNode env = container.path("env");
            assertThat(envVar(env, "SHARDGATE_BACKEND_PASSWORD")
                            .at("/valueFrom/secretKeyRef/key")
                            .asText())
                    .isEqualTo("backend-password");
            assertThat(rendered.get("Secret", FULLNAME + "-credentials")
                            .at("/stringData/backend-password")
                            .asText())
                    .isEqualTo(values.at("/credentials/backendPassword").asText());
            assertThat(envVar(env, "POD_NAME")
                            .at("/valueFrom/fieldRef/fieldPath")
                            .asText())
                    .isEqualTo("metadata.name");
        }
    }

    @Test
    void theStartScriptRefusesAPodNameWithoutOrdinalAndANodeIdOver1023() throws Exception {
        Rendered rendered = render("default-values.yaml");
        assertThat(startScript(rendered, "router-abc", 0).exitCode()).isEqualTo(2);
        ToolRun over = startScript(rendered, FULLNAME + "-24", 1000);
        assertThat(over.exitCode()).isEqualTo(2);
        assertThat(over.stderr()).contains("node_id 1024");
        ToolRun last = startScript(rendered, FULLNAME + "-23", 1000);
        assertThat(last.exitCode()).as(last.toString()).isZero();
        assertThat(last.stdout()).contains("node_id 1023");
    }

    @Test
    void probesServicesBudgetAndSpreadSelectTheRouterPods() throws Exception {
        Rendered rendered = render("external-zookeeper-values.yaml");
        JsonNode router = rendered.get("StatefulSet", FULLNAME);
        JsonNode pod = router.at("/spec/template");
        JsonNode labels = pod.at("/metadata/labels");
        JsonNode container = pod.at("/spec/containers/0");
        assertThat(router.at("/spec/replicas").asInt()).isEqualTo(4);
        assertThat(selects(router.at("/spec/selector/matchLabels"), labels)).isTrue();
        assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/ready");
        assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/health");
        assertThat(container.at("/readinessProbe/httpGet/port").asText()).isEqualTo("http");
        assertThat(container.at("/lifecycle/preStop/exec/command").toString()).isEqualTo("[\"sleep\",\"10\"]");
        // preStop 10 s + transactions 120 s + 10 s to close
        assertThat(pod.at("/spec/terminationGracePeriodSeconds").asInt()).isEqualTo(140);
        assertThat(envVar(container.path("env"), "JAVA_OPTS").path("value").asText())
                .startsWith("-Xms2g -Xmx2g ");
        assertThat(container.at("/resources/limits/memory").asText()).isEqualTo("3Gi");
        assertThat(container.at("/command").toString()).contains("/etc/shardgate/bootstrap/start.sh");
        JsonNode spread = pod.at("/spec/topologySpreadConstraints");
        assertThat(spread.size()).isEqualTo(2);
        spread.forEach(c ->
                assertThat(selects(c.at("/labelSelector/matchLabels"), labels)).isTrue());

        JsonNode client = rendered.get("Service", FULLNAME);
        assertThat(selects(client.at("/spec/selector"), labels)).isTrue();
        assertThat(client.at("/spec/ports").size()).isEqualTo(1);
        assertThat(client.at("/spec/ports/0/targetPort").asText()).isEqualTo("mysql");
        JsonNode internal = rendered.get("Service", FULLNAME + "-internal");
        assertThat(router.at("/spec/serviceName").asText()).isEqualTo(FULLNAME + "-internal");
        assertThat(selects(internal.at("/spec/selector"), labels)).isTrue();
        List<String> internalPorts = new ArrayList<>();
        internal.at("/spec/ports")
                .forEach(p -> internalPorts.add(p.path("targetPort").asText()));
        assertThat(internalPorts).containsExactly("admin", "http");
        JsonNode budget = rendered.get("PodDisruptionBudget", FULLNAME);
        assertThat(selects(budget.at("/spec/selector/matchLabels"), labels)).isTrue();
        assertThat(budget.at("/spec/maxUnavailable").asInt()).isEqualTo(1);
        // the ensemble's members are no router pods, and a router is no member
        assertThat(rendered.ofKind("StatefulSet")).hasSize(1);
    }

    @Test
    void theInChartEnsembleIsWhatTheRoutersConnectTo() throws Exception {
        Rendered rendered = render("default-values.yaml");
        String zk = FULLNAME + "-zookeeper";
        JsonNode ensemble = rendered.get("StatefulSet", zk);
        assertThat(ensemble.at("/spec/replicas").asInt()).isEqualTo(3);
        JsonNode headless = rendered.get("Service", zk + "-headless");
        assertThat(headless.at("/spec/clusterIP").asText()).isEqualTo("None");
        assertThat(ensemble.at("/spec/serviceName").asText()).isEqualTo(zk + "-headless");
        assertThat(selects(headless.at("/spec/selector"), ensemble.at("/spec/template/metadata/labels")))
                .isTrue();
        RouterConfig config = RouterConfig.load(assemble(rendered, FULLNAME + "-0", 0));
        List<String> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(zk + "-" + i + "." + zk + "-headless." + NAMESPACE + ".svc:2181");
        }
        assertThat(config.zookeeper().connect()).isEqualTo(String.join(",", members));
        String servers = envVar(ensemble.at("/spec/template/spec/containers/0/env"), "ZOO_SERVERS")
                .path("value")
                .asText();
        for (int i = 0; i < 3; i++) {
            assertThat(servers)
                    .contains("server." + (i + 1) + "=" + members.get(i).replace(":2181", ":2888:3888;2181"));
        }
        assertThat(rendered.get("PodDisruptionBudget", zk)
                        .at("/spec/maxUnavailable")
                        .asInt())
                .isEqualTo(1);

        Rendered external = render("external-zookeeper-values.yaml");
        assertThat(external.manifests())
                .as("no ZooKeeper object when zookeeper.enabled is false")
                .noneMatch(m -> m.at("/metadata/name").asText().startsWith(zk));
        assertThat(RouterConfig.load(assemble(external, FULLNAME + "-0", 100))
                        .zookeeper()
                        .connect())
                .isEqualTo("zk-0.zk.infra.svc:2181,zk-1.zk.infra.svc:2181,zk-2.zk.infra.svc:2181");
    }

    @Test
    void theServiceMonitorScrapesEveryRoutersMetricsThroughTheInternalService() throws Exception {
        Rendered rendered = render("external-zookeeper-values.yaml");
        JsonNode monitor = rendered.get("ServiceMonitor", FULLNAME);
        assertThat(monitor.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        JsonNode internal = rendered.get("Service", FULLNAME + "-internal");
        assertThat(selects(monitor.at("/spec/selector/matchLabels"), internal.at("/metadata/labels")))
                .isTrue();
        assertThat(selects(
                        monitor.at("/spec/selector/matchLabels"),
                        rendered.get("Service", FULLNAME).at("/metadata/labels")))
                .as("the client Service has no http port: not selected")
                .isFalse();
        assertThat(monitor.at("/spec/endpoints/0/port").asText()).isEqualTo("http");
        assertThat(monitor.at("/spec/endpoints/0/path").asText()).isEqualTo("/metrics");
        assertThat(monitor.at("/spec/namespaceSelector/matchNames/0").asText()).isEqualTo(NAMESPACE);
        assertThat(monitor.at("/metadata/labels/release").asText()).isEqualTo("prometheus");
        assertThat(render("default-values.yaml").ofKind("ServiceMonitor"))
                .as("off by default")
                .isEmpty();
    }

    @Test
    void theDashboardConfigMapHoldsTheComposeClustersDashboard() throws Exception {
        JsonNode map = render("default-values.yaml").get("ConfigMap", FULLNAME + "-dashboard");
        assertThat(map.at("/metadata/labels/grafana_dashboard").asText()).isEqualTo("1");
        ObjectMapper json = new ObjectMapper();
        assertThat(json.readTree(map.at("/data/shardgate.json").asText()))
                .isEqualTo(json.readTree(Repository.file("deploy/compose/grafana/dashboards/shardgate.json")
                        .toFile()));
        assertThat(render("existing-secret-values.yaml").ofKind("ConfigMap"))
                .extracting(m -> m.at("/metadata/name").asText())
                .containsExactly(FULLNAME);
    }

    @Test
    void helmTestLogsInThroughTheClientServiceWithTheSecretsAccount() throws Exception {
        Rendered rendered = render("default-values.yaml");
        JsonNode test = rendered.get("Pod", FULLNAME + "-test-query");
        assertThat(test.at("/metadata/annotations/helm.sh~1hook").asText()).isEqualTo("test");
        String command = test.at("/spec/containers/0/command").toString();
        JsonNode client = rendered.get("Service", FULLNAME);
        assertThat(command)
                .contains("--host=" + FULLNAME)
                .contains("--port=" + client.at("/spec/ports/0/port").asInt())
                .contains("--user=$(CLIENT_USER)")
                .contains("--execute=SELECT 1");
        JsonNode secret = rendered.get("Secret", FULLNAME + "-credentials");
        JsonNode env = test.at("/spec/containers/0/env");
        assertThat(secret.at("/stringData/"
                                + envVar(env, "CLIENT_USER")
                                        .at("/valueFrom/secretKeyRef/key")
                                        .asText())
                        .asText())
                .isEqualTo("app");
        assertThat(secret.at("/stringData/"
                                + envVar(env, "MYSQL_PWD")
                                        .at("/valueFrom/secretKeyRef/key")
                                        .asText())
                        .asText())
                .isEqualTo("app-secret");
    }

    @Test
    void anExistingSecretReplacesTheChartsOwn() throws Exception {
        Rendered rendered = render("existing-secret-values.yaml");
        assertThat(rendered.ofKind("Secret")).isEmpty();
        JsonNode pod = rendered.get("StatefulSet", FULLNAME).at("/spec/template/spec");
        assertThat(pod.at("/volumes").toString()).contains("\"secretName\":\"shardgate-prod-credentials\"");
        assertThat(rendered.get("Service", FULLNAME).at("/spec/type").asText()).isEqualTo("LoadBalancer");
        assertThat(rendered.get("StatefulSet", FULLNAME + "-zookeeper")
                        .at("/spec/replicas")
                        .asInt())
                .isEqualTo(5);
        assertThat(rendered.ofKind("PodDisruptionBudget"))
                .extracting(m -> m.at("/metadata/name").asText())
                .containsExactly(FULLNAME + "-zookeeper");
    }

    @Test
    void valuesThatCannotWorkAreRefusedWithTheReason() throws Exception {
        Path defaults = HelmChart.DIR.resolve("ci/default-values.yaml");
        Map<List<String>, String> refused = new java.util.LinkedHashMap<>();
        refused.put(List.of("credentials.backendPassword="), "backendPassword");
        refused.put(List.of("zookeeper.enabled=false"), "external");
        refused.put(List.of("replicas=1"), "replicas");
        refused.put(
                List.of("hostgroups[0].id=10", "hostgroups[0].writer=db:3306", "hostgroups[0].password=x"),
                "hostgroups");
        refused.put(List.of("server.bind=127.0.0.1"), "invalid propertyName 'bind'");
        refused.put(List.of("jvm.heap=lots"), "heap");
        refused.put(List.of("nodeIdOffset=1023"), "nodeIdOffset");
        for (Map.Entry<List<String>, String> entry : refused.entrySet()) {
            ToolRun run = HelmChart.helm(HelmChart.templateArgs(List.of(defaults), entry.getKey()));
            assertThat(run.exitCode())
                    .as(entry.getKey() + " is refused:\n" + run)
                    .isNotZero();
            assertThat(run.stderr()).as(run.toString()).contains(entry.getValue());
        }
        ToolRun noCredentials = HelmChart.helm(HelmChart.templateArgs(List.of(), List.of()));
        assertThat(noCredentials.exitCode()).isNotZero();
        assertThat(noCredentials.stderr()).contains("backendPassword");
    }

    /**
     * Runs the chart's start.sh as the pod named {@code podName} would, and returns the file it
     * wrote with the backend password reference resolved as the router resolves it from the pod's
     * environment (the Secret's {@code backend-password}): the loader checks that it is set.
     */
    private Path assemble(Rendered rendered, String podName, int offset) throws Exception {
        ToolRun run = startScript(rendered, podName, offset);
        assertThat(run.exitCode()).as(run.toString()).isZero();
        String assembled = Files.readString(tmp.resolve(podName).resolve("shardgate.yaml"));
        assertThat(assembled).contains("password: ${SHARDGATE_BACKEND_PASSWORD}");
        String password = rendered.get("Secret", FULLNAME + "-credentials")
                .at("/stringData/backend-password")
                .asText();
        return write(
                tmp.resolve(podName).resolve("with-environment.yaml"),
                assembled.replace("${SHARDGATE_BACKEND_PASSWORD}", password));
    }

    private ToolRun startScript(Rendered rendered, String podName, int offset) throws Exception {
        JsonNode config = rendered.get("ConfigMap", FULLNAME);
        JsonNode secret = rendered.get("Secret", FULLNAME + "-credentials");
        Path dir = Files.createDirectories(tmp.resolve(podName));
        Path script = write(dir.resolve("start.sh"), config.at("/data/start.sh").asText());
        Path bootstrap = write(
                dir.resolve("bootstrap.yaml"), config.at("/data/shardgate.yaml").asText());
        Path credentials = write(
                dir.resolve("credentials.yaml"),
                secret.at("/stringData/credentials.yaml").asText());
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        ProcessBuilder builder = new ProcessBuilder("sh", script.toString(), "true")
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        Map<String, String> env = builder.environment();
        env.put("POD_NAME", podName);
        env.put("NODE_ID_OFFSET", String.valueOf(offset));
        env.put("BOOTSTRAP_CONFIG", bootstrap.toString());
        env.put("CREDENTIALS_CONFIG", credentials.toString());
        env.put("SHARDGATE_CONFIG", dir.resolve("shardgate.yaml").toString());
        Process process = builder.start();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new ToolRun(
                List.of("sh", "start.sh", podName), process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static Path write(Path file, String text) throws IOException {
        return Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    private static JsonNode envVar(JsonNode env, String name) {
        for (JsonNode var : env) {
            if (var.path("name").asText().equals(name)) {
                return var;
            }
        }
        throw new AssertionError("no env " + name + " in " + env);
    }

    private static String mountPath(JsonNode container, String volume) {
        for (JsonNode mount : container.path("volumeMounts")) {
            if (mount.path("name").asText().equals(volume)) {
                return mount.path("mountPath").asText();
            }
        }
        throw new AssertionError("no mount of " + volume);
    }

    /** True when every label of {@code selector} is on {@code labels} (a non-empty selector). */
    private static boolean selects(JsonNode selector, JsonNode labels) {
        if (selector.isEmpty()) {
            return false;
        }
        var fields = selector.fields();
        while (fields.hasNext()) {
            var field = fields.next();
            if (!labels.path(field.getKey()).asText().equals(field.getValue().asText())) {
                return false;
            }
        }
        return true;
    }
}
