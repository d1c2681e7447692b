package io.shardgate.router.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Statement latency and errors per hostgroup and command ({@code COM_QUERY}, {@code
 * COM_STMT_EXECUTE}), exported as Prometheus histograms with fixed buckets from 100 µs to 10 s.
 *
 * <p>Tags are bounded by configuration: one series set per hostgroup id the router has run (plus
 * {@code -1}: several hostgroups or none), times two commands. Statement shapes and users are not
 * tags (per shape, see {@link QueryDigestStats}). Meters are created when a hostgroup is configured,
 * never on the statement path: recording is an array index and the timer's atomic adds. Ids outside
 * the array (negative or very large) fall back to an immutable map lookup.
 */
public final class StatementTimers {
    /** Bucket bounds: a MySQL point select is ~0.1-1 ms, a report can take seconds. */
    static final Duration[] BUCKETS = {
        Duration.ofNanos(100_000),
        Duration.ofNanos(250_000),
        Duration.ofNanos(500_000),
        Duration.ofMillis(1),
        Duration.ofNanos(2_500_000),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofMillis(2_500),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10)
    };
    /** Hostgroup ids below this are looked up by index. */
    private static final int DENSE_IDS = 4096;

    /** The meters of one hostgroup. */
    private record Meters(Timer query, Timer execute, Counter queryErrors, Counter executeErrors) {
        void record(boolean prepared, long nanos, boolean error) {
            (prepared ? execute : query).record(nanos, TimeUnit.NANOSECONDS);
            if (error) {
                (prepared ? executeErrors : queryErrors).increment();
            }
        }
    }

    private final MeterRegistry registry;
    private final Meters several;
    private volatile Meters[] dense = new Meters[0];
    private volatile Map<Integer, Meters> sparse = Map.of();

    StatementTimers(MeterRegistry registry) {
        this.registry = registry;
        this.several = create(QueryDigestStats.SEVERAL_HOSTGROUPS);
    }

    /** Creates the meters of hostgroup {@code id} unless they exist (called when hostgroups are configured). */
    synchronized void hostgroup(int id) {
        if (find(id) != several || id == QueryDigestStats.SEVERAL_HOSTGROUPS) {
            return;
        }
        Meters meters = create(id);
        if (id >= 0 && id < DENSE_IDS) {
            Meters[] next = Arrays.copyOf(dense, Math.max(dense.length, id + 1));
            next[id] = meters;
            dense = next;
        } else {
            Map<Integer, Meters> next = new HashMap<>(sparse);
            next.put(id, meters);
            sparse = Map.copyOf(next);
        }
    }

    /**
     * One statement ended after {@code nanos} on {@code hostgroup} ({@code -1}: several or none);
     * {@code prepared} for {@code COM_STMT_EXECUTE}. A hostgroup without meters (unknown to the
     * configuration) counts under {@code -1}.
     */
    void record(int hostgroup, boolean prepared, long nanos, boolean error) {
        find(hostgroup).record(prepared, nanos, error);
    }

    private Meters find(int id) {
        Meters[] d = dense;
        if (id >= 0 && id < d.length) {
            Meters m = d[id];
            return m != null ? m : several;
        }
        Meters m = sparse.get(id);
        return m != null ? m : several;
    }

    private Meters create(int id) {
        String hostgroup = Integer.toString(id);
        return new Meters(
                timer(hostgroup, "COM_QUERY"),
                timer(hostgroup, "COM_STMT_EXECUTE"),
                errors(hostgroup, "COM_QUERY"),
                errors(hostgroup, "COM_STMT_EXECUTE"));
    }

    private Timer timer(String hostgroup, String command) {
        return Timer.builder("shardgate.statements")
                .description("Statements from the client's command to the end of the router's answer, by hostgroup"
                        + " (-1: several or none) and command")
                .tag("hostgroup", hostgroup)
                .tag("command", command)
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
    }

    private Counter errors(String hostgroup, String command) {
        return Counter.builder("shardgate.statements.errors")
                .description("Statements answered with an error (the router's or a backend's), by hostgroup and"
                        + " command")
                .tag("hostgroup", hostgroup)
                .tag("command", command)
                .register(registry);
    }
}
