package io.shardgate.admin.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Scheduler;
import com.github.benmanes.caffeine.cache.Ticker;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.shardgate.admin.store.ZkRuleStore;
import io.shardgate.admin.zookeeper.ZooKeeperFixture;
import io.shardgate.cache.CacheConfig;
import io.shardgate.cache.CacheKey;
import io.shardgate.cache.CacheMode;
import io.shardgate.cache.CachePolicy;
import io.shardgate.cache.Lookup;
import io.shardgate.cache.QualifiedTable;
import io.shardgate.cache.ResultCache;
import io.shardgate.sharding.digest.Digest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/cache}: stats and purges of a real {@link ResultCache} through the HTTP endpoint. */
class AdminHttpCacheRoutesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private ZooKeeperFixture zk;
    private ZkRuleStore store;
    private ResultCache cache;
    private AdminHttpServer server;
    private AdminHttpServer without;
    private final HttpClient http = HttpClient.newHttpClient();

    /** The router's side of the interface, here over the cache alone. */
    @BeforeEach
    void start() throws Exception {
        zk = new ZooKeeperFixture(dir.resolve("zk"));
        PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        store = new ZkRuleStore(zk.newClient(), "/shardgate/cache-http", documents -> List.of(), metrics);
        store.start();
        cache = new ResultCache(
                new CacheConfig(true, 1 << 20, 1 << 16, Duration.ofSeconds(30)),
                metrics,
                Ticker.systemTicker(),
                UnpooledByteBufAllocator.DEFAULT,
                Scheduler.disabledScheduler());
        server = new AdminHttpServer(AdminHttpServer.loopback(0), store, metrics, new ResultCacheControl(cache));
        server.start();
        without = new AdminHttpServer(
                AdminHttpServer.loopback(0), store, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        without.start();
    }

    @AfterEach
    void stop() {
        without.close();
        server.close();
        cache.close();
        store.close();
        zk.close();
    }

    /** Stores one result of {@code sql} under query rule {@code rule}, reading {@code schema.table}. */
    private void store(String schema, String table, String sql, int rule) {
        CachePolicy policy = new CachePolicy(rule, Duration.ofMinutes(10), false);
        CacheKey key = CacheKey.forQuery(schema, Digest.of(sql), "app", policy, "v");
        Lookup lookup = cache.lookup(key, policy, Set.of(QualifiedTable.of(schema, table)), CacheMode.USE);
        assertThat(lookup).isInstanceOf(Lookup.Fill.class);
        ByteBuf response = Unpooled.copiedBuffer("\u0001\u0000\u0000\u0001\u0000", StandardCharsets.ISO_8859_1);
        try {
            assertThat(cache.complete(((Lookup.Fill) lookup).ticket(), response))
                    .isTrue();
        } finally {
            response.release();
        }
    }

    private HttpResponse<String> send(AdminHttpServer to, String method, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to.port() + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private int purged(String query) throws Exception {
        HttpResponse<String> response = send(server, "POST", "/api/cache/purge" + query);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body()).get("purged").asInt();
    }

    @Test
    void statsShowTotalsAndEachRule() throws Exception {
        store("shop", "items", "SELECT * FROM items WHERE id = 1", 0);
        store("shop", "items", "SELECT * FROM items WHERE id = 2", 3);
        HttpResponse<String> response = send(server, "GET", "/api/cache");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("enabled").asBoolean()).isTrue();
        assertThat(body.get("total").get("entries").asLong()).isEqualTo(2);
        assertThat(body.get("total").get("misses").asLong()).isEqualTo(2);
        assertThat(body.get("total").get("bytes").asLong()).isEqualTo(10);
        assertThat(body.get("rules").get("3").get("stores").asLong()).isEqualTo(1);
    }

    @Test
    void purgesByTableSchemaRuleAndAll() throws Exception {
        store("shop", "items", "SELECT * FROM items WHERE id = 1", 0);
        store("shop", "orders", "SELECT * FROM orders WHERE id = 1", 1);
        store("crm", "people", "SELECT * FROM people WHERE id = 1", 2);
        store("crm", "notes", "SELECT * FROM notes WHERE id = 1", 2);
        assertThat(purged("?schema=shop&table=items")).isEqualTo(1);
        assertThat(purged("?schema=shop&table=items")).isZero();
        assertThat(purged("?rule=2")).isEqualTo(2);
        store("crm", "people", "SELECT * FROM people WHERE id = 2", 2);
        assertThat(purged("?schema=shop")).isEqualTo(1);
        assertThat(purged("")).isEqualTo(1);
        assertThat(cache.stats().entries()).isZero();
    }

    @Test
    void badRequestsSayWhatIsWrong() throws Exception {
        HttpResponse<String> table = send(server, "POST", "/api/cache/purge?table=items");
        assertThat(table.statusCode()).isEqualTo(400);
        assertThat(table.body()).contains("table needs its schema");
        assertThat(send(server, "POST", "/api/cache/purge?rule=x").body()).contains("query rule index");
        assertThat(send(server, "POST", "/api/cache/purge?rule=1&schema=shop").statusCode())
                .isEqualTo(400);
        assertThat(send(server, "POST", "/api/cache/purge?colour=red").body()).contains("unknown parameter 'colour'");
        HttpResponse<String> get = send(server, "GET", "/api/cache/purge");
        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(get.headers().firstValue("Allow")).contains("POST");
        assertThat(send(server, "DELETE", "/api/cache").statusCode()).isEqualTo(405);
    }

    @Test
    void aServerWithoutACacheAnswers503() throws Exception {
        assertThat(send(without, "GET", "/api/cache").statusCode()).isEqualTo(503);
        assertThat(send(without, "POST", "/api/cache/purge").statusCode()).isEqualTo(503);
        assertThat(send(without, "GET", "/health").statusCode()).isEqualTo(200);
    }
}
