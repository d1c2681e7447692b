package io.shardgate.admin.http;

import static io.shardgate.admin.zookeeper.ZooKeeperFixture.PATIENCE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.admin.store.ConfigValidator;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.admin.store.LiveRouter;
import io.shardgate.admin.store.ZkRuleStore;
import io.shardgate.admin.zookeeper.ZooKeeperFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdminHttpServerTest {
    private static final String ROOT = "/shardgate/http";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ConfigValidator VALIDATOR = documents -> {
        List<String> problems = new ArrayList<>();
        if (documents.get(ConfigDocuments.HOSTGROUPS) == null) {
            problems.add("hostgroups: missing");
        }
        documents.sections().forEach((section, text) -> {
            if (text.contains("INVALID")) {
                problems.add(section + ": contains INVALID");
            }
        });
        return problems;
    };
    private static final ConfigDocuments SEED = ConfigDocuments.of(
            Map.of(ConfigDocuments.HOSTGROUPS, "[{\"id\":10,\"writer\":\"db1:3306\"}]", ConfigDocuments.SCHEMAS, "[]"));

    @TempDir
    Path dir;

    private ZooKeeperFixture zk;
    private PrometheusMeterRegistry metrics;
    private ZkRuleStore store;
    private ZkRuleStore otherRouter;
    private AdminHttpServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        zk = new ZooKeeperFixture(dir.resolve("zk"));
        metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        store = new ZkRuleStore(zk.newClient(), ROOT, VALIDATOR, metrics);
        store.start();
        otherRouter = new ZkRuleStore(zk.newClient(), ROOT, VALIDATOR, new SimpleMeterRegistry());
        otherRouter.start();
        server = new AdminHttpServer(AdminHttpServer.loopback(0), store, metrics);
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
        otherRouter.close();
        store.close();
        zk.close();
    }

    private void seed() throws InterruptedException {
        assertThat(store.seedIfEmpty(SEED)).isTrue();
        assertThat(store.awaitVersion(1, PATIENCE)).isPresent();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(uri(path))
                        .method(method, HttpRequest.BodyPublishers.ofString(body))
                        .header("Content-Type", "application/json")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    @Test
    void healthIsAlwaysOkAndReadinessWaitsForAConfigVersion() throws Exception {
        HttpResponse<String> health = get("/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).isEqualTo("ok\n");
        assertThat(get("/ready").statusCode()).isEqualTo(503);
        assertThat(get("/api/config").statusCode()).isEqualTo(503);

        seed();
        HttpResponse<String> ready = get("/ready");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).contains("config version 1");
    }

    @Test
    void getConfigAnswersTheCurrentVersion() throws Exception {
        seed();
        HttpResponse<String> response = get("/api/config");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("version").asLong()).isEqualTo(1);
        assertThat(body.get("documents").get("hostgroups").asText()).isEqualTo(SEED.get("hostgroups"));
        assertThat(body.get("documents").get("schemas").asText()).isEqualTo("[]");
    }

    @Test
    void putPublishesAVersionThatAnotherRouterReceives() throws Exception {
        seed();
        HttpResponse<String> response = send(
                "PUT",
                "/api/config",
                "{\"basedOn\": 1, \"documents\": {\"hostgroups\": [{\"id\": 20}], \"schemas\": \"- name: app\\n\"}}");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("version").asLong()).isEqualTo(2);

        ConfigVersion received = otherRouter.awaitVersion(2, PATIENCE).orElseThrow();
        assertThat(received.documents().get("hostgroups")).isEqualTo("[{\"id\":20}]");
        assertThat(received.documents().get("schemas")).isEqualTo("- name: app\n");

        // what GET answers can be edited and PUT back: its "version" is what the change is based on.
        // GET shows what this process serves, so wait until it serves version 2 (the publish returns
        // before the store's own watch delivers it; a GET in between would answer version 1 -> 409).
        assertThat(store.awaitVersion(2, PATIENCE)).isPresent();
        JsonNode current = JSON.readTree(get("/api/config").body());
        ((com.fasterxml.jackson.databind.node.ObjectNode) current.get("documents")).put("cache", "{}");
        HttpResponse<String> again = send("PUT", "/api/config", current.toString());
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(JSON.readTree(again.body()).get("version").asLong()).isEqualTo(3);
        assertThat(otherRouter
                        .awaitVersion(3, PATIENCE)
                        .orElseThrow()
                        .documents()
                        .get("cache"))
                .isEqualTo("{}");
    }

    @Test
    void putOfAnInvalidVersionAnswers400WithTheProblems() throws Exception {
        seed();
        HttpResponse<String> response = send("PUT", "/api/config", "{\"documents\": {\"schemas\": \"INVALID\"}}");
        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("problems").toString())
                .isEqualTo("[\"hostgroups: missing\",\"schemas: contains INVALID\"]");
        assertThat(store.current().orElseThrow().number()).isEqualTo(1);

        JsonNode status = JSON.readTree(get("/api/status").body());
        assertThat(status.get("version").asLong()).isEqualTo(1);
        assertThat(status.get("connected").asBoolean()).isTrue();
        assertThat(status.get("lastRejection").get("source").asText()).isEqualTo("publish");
        assertThat(status.get("lastRejection").get("problems")).hasSize(2);
    }

    @Test
    void putBasedOnAnOldVersionAnswers409() throws Exception {
        seed();
        otherRouter.publish(1, SEED);
        HttpResponse<String> response =
                send("PUT", "/api/config", "{\"basedOn\": 1, \"documents\": {\"hostgroups\": \"[]\"}}");
        assertThat(response.statusCode()).isEqualTo(409);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("basedOn").asLong()).isEqualTo(1);
        assertThat(body.get("current").asLong()).isEqualTo(2);
    }

    @Test
    void malformedRequestsAnswer4xxAndPublishNothing() throws Exception {
        seed();
        assertThat(send("PUT", "/api/config", "{not json").statusCode()).isEqualTo(400);
        assertThat(send("PUT", "/api/config", "[]").statusCode()).isEqualTo(400);
        HttpResponse<String> unknown =
                send("PUT", "/api/config", "{\"documents\": {\"hostgroups\": \"[]\"}, \"force\": true}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("unknown field \\\"force\\\"");
        HttpResponse<String> badSection = send("PUT", "/api/config", "{\"documents\": {\"../etc\": \"x\"}}");
        assertThat(badSection.statusCode()).isEqualTo(400);
        assertThat(badSection.body()).contains("is not [a-z][a-z0-9_]*");
        assertThat(get("/nothing-here").statusCode()).isEqualTo(404);
        HttpResponse<String> post = send("POST", "/api/config", "{}");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).contains("GET, PUT");
        assertThat(send("PUT", "/health", "").statusCode()).isEqualTo(405);
        assertThat(store.current().orElseThrow().number()).isEqualTo(1);
    }

    @Test
    void statusListsTheLiveRouters() throws Exception {
        seed();
        assertThat(store.register(new LiveRouter("r1", "127.0.0.1", Map.of("mysql", 6033), 0), PATIENCE))
                .isTrue();
        JsonNode routers = JSON.readTree(get("/api/status").body()).get("routers");
        assertThat(routers).hasSize(1);
        assertThat(routers.get(0).get("id").asText()).isEqualTo("r1");
        assertThat(routers.get(0).get("ports").get("mysql").asInt()).isEqualTo(6033);
        assertThat(routers.get(0).get("configVersion").asLong()).isEqualTo(1);
    }

    /** One sample line of the Prometheus text format: {@code name{labels} value [timestamp]}. */
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)"
            + "(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:\\\\.|[^\"\\\\])*\"(?:,[a-zA-Z_][a-zA-Z0-9_]*=\"(?:\\\\.|[^\"\\\\])*\")*,?)?\\})?"
            + " (\\S+)(?: -?[0-9]+)?");

    private static final Pattern TYPE =
            Pattern.compile("# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)");

    /** Parses the exposition strictly; returns "name{labels}" to value. */
    private static Map<String, Double> parsePrometheusText(String text) {
        Map<String, Double> samples = new LinkedHashMap<>();
        Set<String> typed = new HashSet<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("#")) {
                Matcher type = TYPE.matcher(line);
                if (type.matches()) {
                    typed.add(type.group(1));
                } else {
                    assertThat(line).as("a comment line").startsWith("# HELP ");
                }
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertThat(m.matches()).as("sample line '%s'", line).isTrue();
            String name = m.group(1);
            assertThat(typed)
                    .as("sample %s follows its # TYPE line", name)
                    .anyMatch(t -> name.equals(t) || name.startsWith(t + "_"));
            String value = m.group(3);
            double parsed = switch (value) {
                case "+Inf" -> Double.POSITIVE_INFINITY;
                case "-Inf" -> Double.NEGATIVE_INFINITY;
                case "NaN" -> Double.NaN;
                default -> Double.parseDouble(value);
            };
            samples.put(name + (m.group(2) == null ? "" : m.group(2)), parsed);
        }
        return samples;
    }

    @Test
    void metricsAreValidPrometheusTextWithTheConfigVersion() throws Exception {
        seed();
        send("PUT", "/api/config", "{\"documents\": {\"schemas\": \"INVALID\"}}");
        send("PUT", "/api/config", "{\"documents\": " + JSON.writeValueAsString(SEED.sections()) + "}");
        assertThat(store.awaitVersion(2, PATIENCE)).isPresent();

        HttpResponse<String> response = get("/metrics");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).contains("text/plain; version=0.0.4; charset=utf-8");
        Map<String, Double> samples = parsePrometheusText(response.body());

        assertThat(samples).containsEntry("shardgate_config_version", 2.0);
        assertThat(samples).containsEntry("shardgate_zookeeper_connected", 1.0);
        assertThat(samples).containsEntry("shardgate_config_rejected_total{source=\"publish\"}", 1.0);
        assertThat(samples).containsEntry("shardgate_config_rejected_total{source=\"watch\"}", 0.0);
        assertThat(samples).containsEntry("shardgate_config_accepted_total", 2.0);
        assertThat(samples)
                .containsEntry("shardgate_admin_http_requests_total{path=\"/api/config\",status=\"400\"}", 1.0);
        assertThat(samples)
                .containsEntry("shardgate_admin_http_requests_total{path=\"/api/config\",status=\"200\"}", 1.0);
    }
}
