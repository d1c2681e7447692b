package io.shardgate.router.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.sharding.rule.ShardingStrategy;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The single-machine default: an empty {@code zookeeper.connect} runs ZooKeeper inside the router
 * with its data under {@code data_dir}. No backend is needed to see the control plane work: the
 * hostgroups point at a closed port (the router starts anyway and says so).
 */
class EmbeddedControlPlaneTest {
    @TempDir
    Path dataDir;

    private final HttpClient http = HttpClient.newHttpClient();

    private String yaml(int placeHostgroup, String user) throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        return yaml(dataDir, closedPort, placeHostgroup, user, "");
    }

    /**
     * A router file whose two hostgroups point at {@code closedPort} (no backend needed), table
     * {@code place} on {@code placeHostgroup}, one user, and {@code extra} lines.
     */
    static String yaml(Path dataDir, int closedPort, int placeHostgroup, String user, String extra) {
        return String.join(
                "\n",
                "server: {port: 0, http_port: 0, tls: {enabled: false}, data_dir: \"" + dataDir + "\"}",
                "users: [{name: " + user + ", password: pw}]",
                "hostgroups:",
                "  - {id: 10, writer: \"127.0.0.1:" + closedPort + "\", user: sg}",
                "  - {id: 20, writer: \"127.0.0.1:" + closedPort + "\", user: sg}",
                "schemas:",
                "  - {name: shop, default_hostgroup: 10, tables: [{name: place, strategy: table, hostgroup: "
                        + placeHostgroup + "}]}",
                extra,
                "");
    }

    private static int placeHostgroup(Shardgate router) {
        ShardingStrategy strategy =
                router.routing().current().schema("shop").listed("place").strategy();
        return strategy.hostgroups().get(0);
    }

    private HttpResponse<String> send(Shardgate router, String method, String path, String body) throws Exception {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.httpPort() + path));
        request = body == null ? request.GET() : request.method(method, HttpRequest.BodyPublishers.ofString(body));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void yamlSeedsTheEmbeddedZooKeeperWhichThenWinsAcrossRestarts() throws Exception {
        try (Shardgate router = Shardgate.start(RouterConfig.parse(yaml(10, "first")))) {
            assertThat(router.configuration().version()).isEqualTo(1);
            assertThat(router.routing().current().version()).isEqualTo(1);
            assertThat(send(router, "GET", "/ready", null).statusCode()).isEqualTo(200);

            String schemas = "[{\"name\":\"shop\",\"default_hostgroup\":10,\"tables\":[{\"name\":\"place\","
                    + "\"strategy\":\"table\",\"hostgroup\":20}]}]";
            HttpResponse<String> put = send(
                    router,
                    "PUT",
                    "/api/config",
                    "{\"basedOn\": 1, \"documents\": " + documents(router, schemas) + "}");
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            assertThat(router.ruleStore().awaitVersion(2, java.time.Duration.ofSeconds(30)))
                    .isPresent();
            assertThat(router.configuration().version()).isEqualTo(2);
            assertThat(placeHostgroup(router)).isEqualTo(20);
            assertThat(send(router, "GET", "/metrics", null).body())
                    .contains("shardgate_config_version 2.0")
                    .contains("shardgate_commands_total{command=\"COM_QUERY\"}")
                    .contains("shardgate_pool_connections_open{pool=");
        }
        // a changed YAML does not override the cluster's configuration: ZooKeeper is the source of truth
        try (Shardgate router = Shardgate.start(RouterConfig.parse(yaml(10, "second")))) {
            assertThat(router.configuration().version()).isEqualTo(2);
            assertThat(placeHostgroup(router)).isEqualTo(20);
            assertThat(router.configuration().current().users())
                    .extracting(u -> u.name())
                    .containsExactly("first");
            assertThat(router.ruleStore().liveRouters()).hasSize(1);
        }
    }

    @Test
    void anInvalidChangeIsRefusedWithTheReasonAndTheVersionStays() throws Exception {
        try (Shardgate router = Shardgate.start(RouterConfig.parse(yaml(10, "app")))) {
            String schemas = "[{\"name\":\"shop\",\"default_hostgroup\":30}]";
            HttpResponse<String> put =
                    send(router, "PUT", "/api/config", "{\"documents\": " + documents(router, schemas) + "}");
            assertThat(put.statusCode()).isEqualTo(400);
            assertThat(put.body()).contains("30");
            assertThat(router.configuration().version()).isEqualTo(1);
            assertThat(send(router, "GET", "/api/status", null).body()).contains("\"source\":\"publish\"");
        }
    }

    private static String documents(Shardgate router, String schemas) throws Exception {
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        var docs = mapper.createObjectNode();
        router.ruleStore().current().orElseThrow().documents().sections().forEach(docs::put);
        docs.put("schemas", schemas);
        return mapper.writeValueAsString(docs);
    }
}
