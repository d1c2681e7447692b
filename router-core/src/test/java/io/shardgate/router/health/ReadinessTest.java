package io.shardgate.router.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.routing.ServerStatus;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /ready} with {@code server.ready_requires_online_backends}: 503 naming the schema and
 * its servers while no server of a schema's default hostgroup is ONLINE (set OFFLINE by an
 * operator, or SHUNNED by the monitor), 200 again once one is. Without the setting the router stays
 * ready. Backends sit at a closed port: hostgroup 10's monitor is off, so its status is what the
 * test sets; hostgroup 20's monitor shuns its server after one failed check.
 */
class ReadinessTest {
    @TempDir
    Path dataDir;

    private final HttpClient http = HttpClient.newHttpClient();
    private int closedPort;

    @BeforeEach
    void closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
    }

    private RouterConfig config(boolean requireOnline, String archiveMonitor) {
        return RouterConfig.parse(String.join(
                "\n",
                "server: {port: 0, http_port: 0, tls: {enabled: false}, data_dir: \"" + dataDir
                        + "\", ready_requires_online_backends: " + requireOnline + "}",
                "users: [{name: app, password: pw}]",
                "hostgroups:",
                "  - {id: 10, writer: \"127.0.0.1:" + closedPort + "\", user: sg, monitor: {enabled: false}}",
                "  - {id: 20, writer: \"127.0.0.1:" + closedPort + "\", user: sg, monitor: " + archiveMonitor + "}",
                "schemas:",
                "  - {name: shop, default_hostgroup: 10}",
                "  - {name: archive, default_hostgroup: 20}",
                ""));
    }

    private HttpResponse<String> ready(Shardgate router) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.httpPort() + "/ready"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void notReadyWhileADefaultHostgroupHasNoOnlineServer() throws Exception {
        try (Shardgate router = Shardgate.start(config(true, "{enabled: false}"))) {
            String server = "127.0.0.1:" + closedPort;
            assertThat(ready(router).statusCode()).isEqualTo(200);

            router.servers().setStatus(10, server, ServerStatus.OFFLINE_SOFT);
            HttpResponse<String> down = ready(router);
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(down.body())
                    .isEqualTo("not ready: schema 'shop': no server of its default hostgroup 10 is ONLINE (" + server
                            + " OFFLINE_SOFT)\n");

            router.servers().setStatus(10, server, ServerStatus.ONLINE);
            assertThat(ready(router).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aServerTheMonitorShunsTakesTheRouterOut() throws Exception {
        try (Shardgate router =
                Shardgate.start(config(true, "{interval_millis: 50, timeout_millis: 500, shun_after_failures: 1}"))) {
            HttpResponse<String> response = ready(router);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (response.statusCode() == 200 && System.nanoTime() < deadline) {
                Thread.sleep(50);
                response = ready(router);
            }
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.body())
                    .startsWith(
                            "not ready: schema 'archive': no server of its default hostgroup 20 is ONLINE (127.0.0.1:"
                                    + closedPort + " SHUNNED: ")
                    .doesNotContain("'shop'");
        }
    }

    @Test
    void withoutTheSettingTheRouterStaysReady() throws Exception {
        try (Shardgate router = Shardgate.start(config(false, "{enabled: false}"))) {
            router.servers().setStatus(10, "127.0.0.1:" + closedPort, ServerStatus.OFFLINE_HARD);
            router.servers().setStatus(20, "127.0.0.1:" + closedPort, ServerStatus.OFFLINE_HARD);
            HttpResponse<String> response = ready(router);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).startsWith("ready: config version 1");
        }
    }
}
