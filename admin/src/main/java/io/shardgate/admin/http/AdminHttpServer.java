package io.shardgate.admin.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.shardgate.admin.store.ConfigConflictException;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.admin.store.InvalidConfigException;
import io.shardgate.admin.store.LiveRouter;
import io.shardgate.admin.store.RuleStore;
import io.shardgate.admin.store.RuleStoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's HTTP control endpoint (default port 6080, loopback): liveness, readiness, Prometheus
 * metrics and the cluster configuration.
 *
 * <pre>
 * GET /health      200 "ok" while the process serves
 * GET /ready       200 once a configuration version is loaded and the {@link ReadinessCheck} passes, else 503
 * GET /metrics     Prometheus text format (0.0.4) of the registry
 * GET /api/config  200 the current version as JSON (see {@link ConfigJson}), 503 when none
 * PUT /api/config  validate and publish: 200 the new version, 400 problems, 409 conflict
 * GET /api/status  version served, ZooKeeper connection, last refused version, live routers
 * GET /api/cache, POST /api/cache/purge[?schema=&amp;table=|?rule=]  result cache ({@link CacheEndpoint})
 * GET /api/transactions, POST /api/transactions/resolve  two-phase commit ({@link TransactionsEndpoint})
 * GET/POST /api/moves, GET /api/moves/{id}, POST /api/moves/{id}/cancel|reverse|cleanup  online resharding ({@link MovesEndpoint})
 * </pre>
 *
 * <p>Built on the JDK's {@code com.sun.net.httpserver} rather than Netty: this serves operators and
 * a scraper a few requests a minute, off the data path, and a blocking two-thread server has no
 * buffers to leak and needs no HTTP codec in the admin module. PUT runs the same {@link
 * RuleStore#publish} as every other publisher, so it validates with the same validator.
 */
public final class AdminHttpServer implements AutoCloseable {
    public static final int DEFAULT_PORT = 6080;

    /** A version is at most {@code ZkRuleStore.MAX_VERSION_BYTES}; JSON escaping can double it. */
    private static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

    private static final String TEXT = "text/plain; charset=utf-8";
    private static final Set<String> PATHS = Set.of("/health", "/ready", "/metrics", "/api/config", "/api/status");
    private static final Logger log = LoggerFactory.getLogger(AdminHttpServer.class);

    private final InetSocketAddress address;
    private final RuleStore store;
    private final PrometheusMeterRegistry metrics;
    private final CacheEndpoint cache;
    private final TransactionsEndpoint transactions;
    private final MovesEndpoint moves;
    private final ReadinessCheck readiness;
    private HttpServer server;
    private ExecutorService executor;

    /**
     * Describes the endpoint; {@link #start()} binds it.
     *
     * @param address where to listen; see {@link #loopback(int)}
     * @param store the configuration to show and publish to
     * @param metrics the registry {@code /metrics} renders; the endpoint's own counter goes there too
     */
    public AdminHttpServer(InetSocketAddress address, RuleStore store, PrometheusMeterRegistry metrics) {
        this(address, store, metrics, null);
    }

    /**
     * As {@link #AdminHttpServer(InetSocketAddress, RuleStore, PrometheusMeterRegistry)}, with the
     * router's result cache behind {@code /api/cache} (null: those routes answer 503).
     */
    public AdminHttpServer(
            InetSocketAddress address, RuleStore store, PrometheusMeterRegistry metrics, CacheControl cache) {
        this(address, store, metrics, cache, ReadinessCheck.NONE);
    }

    /** As above, with {@code readiness} deciding {@code /ready} once a version is loaded. */
    public AdminHttpServer(
            InetSocketAddress address,
            RuleStore store,
            PrometheusMeterRegistry metrics,
            CacheControl cache,
            ReadinessCheck readiness) {
        this(address, store, metrics, cache, readiness, null);
    }

    /** As above, with the two-phase resolver behind {@code /api/transactions} (null: 503). */
    public AdminHttpServer(
            InetSocketAddress address,
            RuleStore store,
            PrometheusMeterRegistry metrics,
            CacheControl cache,
            ReadinessCheck readiness,
            TransactionControl transactions) {
        this(address, store, metrics, cache, readiness, transactions, null);
    }

    /** As above, with online resharding behind {@code /api/moves} (null: 503). */
    public AdminHttpServer(
            InetSocketAddress address,
            RuleStore store,
            PrometheusMeterRegistry metrics,
            CacheControl cache,
            ReadinessCheck readiness,
            TransactionControl transactions,
            MoveControl moves) {
        this.transactions = new TransactionsEndpoint(transactions);
        this.moves = new MovesEndpoint(moves);
        this.address = Objects.requireNonNull(address, "address");
        this.store = Objects.requireNonNull(store, "store");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.cache = new CacheEndpoint(cache);
        this.readiness = Objects.requireNonNull(readiness, "readiness");
    }

    /** 127.0.0.1 at {@code port} (0: any free port). */
    public static InetSocketAddress loopback(int port) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    /** Binds the address and starts answering. */
    public synchronized void start() throws IOException {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        HttpServer http = HttpServer.create(address, 16);
        executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "shardgate-admin-http");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(executor);
        http.createContext("/", this::handle);
        http.start();
        server = http;
        log.info("admin HTTP endpoint on {}", http.getAddress());
    }

    /** The bound port (the chosen one when started with port 0). */
    public synchronized int port() {
        if (server == null) {
            throw new IllegalStateException("not started");
        }
        return server.getAddress().getPort();
    }

    @Override
    public synchronized void close() {
        if (server == null) {
            return;
        }
        server.stop(0);
        executor.shutdown();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
        server = null;
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        String method = exchange.getRequestMethod();
        int status;
        try {
            status = route(exchange, path, method);
        } catch (RuntimeException e) {
            log.error("{} {} failed", method, path, e);
            status = sendJson(exchange, 500, ConfigJson.error("internal error: " + e));
        } finally {
            exchange.close();
        }
        Counter.builder("shardgate.admin.http.requests")
                .description("Requests to the HTTP control endpoint")
                .tag("path", pathTag(path))
                .tag("status", Integer.toString(status))
                .register(metrics)
                .increment();
    }

    private int route(HttpExchange exchange, String path, String method) throws IOException {
        if (CacheEndpoint.PATHS.contains(path)) {
            return cache(exchange, path, method);
        }
        if (TransactionsEndpoint.PATHS.contains(path)) {
            String allowed = TransactionsEndpoint.allowed(path);
            if (!method.equals(allowed)) {
                exchange.getResponseHeaders().set("Allow", allowed);
                return sendJson(exchange, 405, ConfigJson.error(method + " is not allowed on " + path));
            }
            CacheEndpoint.Answer answer = transactions.handle(exchange, path);
            return sendJson(exchange, answer.status(), answer.body());
        }
        if (MovesEndpoint.handles(path)) {
            String allowed = MovesEndpoint.allowed(path);
            if (!allowed.contains(method)) {
                exchange.getResponseHeaders().set("Allow", allowed);
                return sendJson(exchange, 405, ConfigJson.error(method + " is not allowed on " + path));
            }
            CacheEndpoint.Answer answer = moves.handle(exchange, path, method);
            return sendJson(exchange, answer.status(), answer.body());
        }
        if (!PATHS.contains(path)) {
            return sendJson(exchange, 404, ConfigJson.error("no such endpoint: " + path));
        }
        boolean put = method.equals("PUT");
        if (!method.equals("GET") && !(put && path.equals("/api/config"))) {
            exchange.getResponseHeaders().set("Allow", path.equals("/api/config") ? "GET, PUT" : "GET");
            return sendJson(exchange, 405, ConfigJson.error(method + " is not allowed on " + path));
        }
        return switch (path) {
            case "/health" -> sendText(exchange, 200, TEXT, "ok\n");
            case "/ready" -> ready(exchange);
            case "/metrics" -> sendText(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
            case "/api/status" -> status(exchange);
            default -> put ? putConfig(exchange) : getConfig(exchange);
        };
    }

    /** The path as the request counter names it: one value per route (a move's id is not a tag). */
    private static String pathTag(String path) {
        if (PATHS.contains(path) || CacheEndpoint.PATHS.contains(path) || TransactionsEndpoint.PATHS.contains(path)) {
            return path;
        }
        if (MovesEndpoint.handles(path)) {
            return path.equals("/api/moves") ? path : MovesEndpoint.template(path);
        }
        return "other";
    }

    private int cache(HttpExchange exchange, String path, String method) throws IOException {
        String allowed = CacheEndpoint.allowed(path);
        if (!method.equals(allowed)) {
            exchange.getResponseHeaders().set("Allow", allowed);
            return sendJson(exchange, 405, ConfigJson.error(method + " is not allowed on " + path));
        }
        CacheEndpoint.Answer answer = cache.handle(exchange, path);
        return sendJson(exchange, answer.status(), answer.body());
    }

    private int ready(HttpExchange exchange) throws IOException {
        Optional<ConfigVersion> loaded = store.current();
        if (loaded.isEmpty()) {
            return sendText(exchange, 503, TEXT, "not ready: no config version loaded\n");
        }
        Optional<String> problem = readiness.notReadyBecause();
        return problem.isPresent()
                ? sendText(exchange, 503, TEXT, "not ready: " + problem.get() + "\n")
                : sendText(
                        exchange,
                        200,
                        TEXT,
                        "ready: config version " + loaded.get().number() + "\n");
    }

    private int getConfig(HttpExchange exchange) throws IOException {
        Optional<ConfigVersion> current = store.current();
        if (current.isEmpty()) {
            return sendJson(exchange, 503, ConfigJson.error("no config version loaded yet"));
        }
        return sendJson(exchange, 200, ConfigJson.version(current.get()));
    }

    private int putConfig(HttpExchange exchange) throws IOException {
        byte[] body = readBody(exchange.getRequestBody());
        if (body == null) {
            return sendJson(exchange, 413, ConfigJson.error("the body exceeds " + MAX_BODY_BYTES + " bytes"));
        }
        try {
            ConfigJson.Change change = ConfigJson.parseChange(body);
            ConfigVersion published = change.basedOn().isPresent()
                    ? store.publish(change.basedOn().getAsLong(), change.documents())
                    : store.publish(change.documents());
            return sendJson(exchange, 200, ConfigJson.version(published));
        } catch (ConfigJson.BadRequest e) {
            return sendJson(exchange, 400, ConfigJson.problems("bad request", e.problems()));
        } catch (InvalidConfigException e) {
            return sendJson(exchange, 400, ConfigJson.problems("invalid configuration", e.problems()));
        } catch (ConfigConflictException e) {
            return sendJson(
                    exchange,
                    409,
                    ConfigJson.error(e.getMessage()).put("basedOn", e.basedOn()).put("current", e.current()));
        } catch (RuleStoreException e) {
            return sendJson(exchange, 503, ConfigJson.error(e.getMessage()));
        }
    }

    private int status(HttpExchange exchange) throws IOException {
        List<LiveRouter> routers = List.of();
        String routersError = null;
        try {
            routers = store.liveRouters();
        } catch (RuleStoreException e) {
            routersError = e.getMessage(); // ZooKeeper down: still show what this process serves
        }
        return sendJson(exchange, 200, ConfigJson.status(store.status(), routers, routersError));
    }

    /** The whole body, or null when it is larger than {@link #MAX_BODY_BYTES}. */
    private static byte[] readBody(InputStream in) throws IOException {
        byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
        return body.length > MAX_BODY_BYTES ? null : body;
    }

    private static int sendJson(HttpExchange exchange, int status, JsonNode json) throws IOException {
        return sendText(exchange, status, "application/json", ConfigJson.MAPPER.writeValueAsString(json) + "\n");
    }

    private static int sendText(HttpExchange exchange, int status, String contentType, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
        return status;
    }
}
