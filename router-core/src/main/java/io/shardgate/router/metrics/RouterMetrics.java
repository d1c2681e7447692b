package io.shardgate.router.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.pool.PoolStats;
import io.shardgate.router.routing.Hostgroups;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The router's meters, rendered by {@code /metrics}: client connections, commands by type, errors
 * the router itself answered by code, statement latency per hostgroup ({@link StatementTimers}),
 * backend pool usage per server. The data plane only touches meters created up front (commands,
 * per hostgroup) or once per error code, so a statement costs array lookups and atomic adds; pool
 * gauges are read at scrape time.
 */
public final class RouterMetrics {
    private final PrometheusMeterRegistry registry;
    private final Map<Command, Counter> commands = new EnumMap<>(Command.class);
    private final Map<Integer, Counter> errors = new ConcurrentHashMap<>();
    private final Set<String> poolsMetered = new HashSet<>(); // guarded by this
    private final Counter accepted;
    private final Counter retried;
    private final QueryDigestStats digests = new QueryDigestStats(MAX_DIGESTS);
    private final StatementTimers statements;

    /** Statement shapes whose statistics are kept; the least used beyond this are evicted. */
    static final long MAX_DIGESTS = 10_000;

    public RouterMetrics() {
        this(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    public RouterMetrics(PrometheusMeterRegistry registry) {
        this.registry = registry;
        for (Command command : Command.values()) {
            commands.put(
                    command,
                    Counter.builder("shardgate.commands")
                            .description("Client commands received, by type (COM_QUERY, COM_STMT_EXECUTE, ...)")
                            .tag("command", command.name())
                            .register(registry));
        }
        statements = new StatementTimers(registry);
        accepted = Counter.builder("shardgate.client.connections.accepted")
                .description("Client connections accepted since start")
                .register(registry);
        retried = Counter.builder("shardgate.statements.retried")
                .description("Statements run again on a fresh backend connection because the pooled one"
                        + " was dead before the server read them")
                .register(registry);
        // the sockets' buffers come from Netty's default allocator, which counts the direct memory it holds
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider allocator) {
            Gauge.builder("shardgate.memory.direct", allocator, a -> a.metric().usedDirectMemory())
                    .description("Direct (off-heap) memory held by the socket buffers' allocator")
                    .baseUnit("bytes")
                    .register(registry);
        }
    }

    /** The registry {@code /metrics} renders; other components register their meters here too. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Meters the open client connections as {@code open} reports them. */
    public void clientConnections(IntSupplier open) {
        Gauge.builder("shardgate.client.connections", open, s -> s.getAsInt())
                .description("Client connections open")
                .register(registry);
    }

    /** Per-digest statement statistics. */
    public QueryDigestStats digests() {
        return digests;
    }

    /** A client connection was accepted. */
    public void connectionAccepted() {
        accepted.increment();
    }

    /** A statement ran again on another connection: the one borrowed for it was found dead. */
    public void statementRetried() {
        retried.increment();
    }

    /** Statements run again so far (see {@link #statementRetried}). */
    public long statementsRetried() {
        return (long) retried.count();
    }

    /** A client sent {@code command}. */
    public void command(Command command) {
        commands.get(command).increment();
    }

    /** The router answered a client with ERR {@code code} (backend errors are relayed, not counted). */
    public void error(int code) {
        errors.computeIfAbsent(
                        code,
                        c -> Counter.builder("shardgate.errors")
                                .description("ERR packets the router itself sent to clients, by error code")
                                .tag("code", Integer.toString(c))
                                .register(registry))
                .increment();
    }

    /**
     * A COM_QUERY ({@code prepared} false) or COM_STMT_EXECUTE ended after {@code nanos} on {@code
     * hostgroup} (-1: several or none); the hostgroup's timer was created by {@link #pools}.
     */
    public void statement(int hostgroup, boolean prepared, long nanos, boolean error) {
        statements.record(hostgroup, prepared, nanos, error);
    }

    /**
     * Meters every hostgroup and pool of {@code hostgroups} not metered yet (call again after
     * hostgroups are added or replaced).
     */
    public synchronized void pools(Hostgroups hostgroups) {
        hostgroups.all().forEach(h -> statements.hostgroup(h.id()));
        for (PoolStats stats : hostgroups.poolStats()) {
            if (poolsMetered.add(stats.pool())) {
                String pool = stats.pool();
                poolGauge(
                        hostgroups,
                        pool,
                        "shardgate.pool.connections.open",
                        "Backend connections open or opening",
                        PoolStats::open);
                poolGauge(
                        hostgroups,
                        pool,
                        "shardgate.pool.connections.idle",
                        "Backend connections idle in the pool",
                        PoolStats::idle);
                poolGauge(
                        hostgroups,
                        pool,
                        "shardgate.pool.connections.busy",
                        "Backend connections lent out to statements, transactions or pinned sessions (open - idle)",
                        s -> s.open() - s.idle());
                poolGauge(
                        hostgroups,
                        pool,
                        "shardgate.pool.waiting",
                        "Statements waiting for a backend connection",
                        PoolStats::waiting);
                poolGauge(
                        hostgroups,
                        pool,
                        "shardgate.pool.connections.created",
                        "Backend connections opened since start",
                        PoolStats::created);
                poolGauge(
                        hostgroups,
                        pool,
                        "shardgate.pool.acquire.timeouts",
                        "Borrowers that gave up after acquire_timeout_millis",
                        PoolStats::timeouts);
                poolGauge(
                        hostgroups,
                        pool,
                        "shardgate.pool.connect.failures",
                        "Backend connection attempts that failed",
                        PoolStats::connectFailures);
            }
        }
    }

    private void poolGauge(
            Hostgroups hostgroups, String pool, String name, String description, ToDoubleFunction<PoolStats> field) {
        Gauge.builder(
                        name,
                        hostgroups,
                        h -> h.poolStats().stream()
                                .filter(s -> s.pool().equals(pool))
                                .mapToDouble(field)
                                .findFirst()
                                .orElse(Double.NaN))
                .description(description)
                .tag("pool", pool)
                .register(registry);
    }
}
