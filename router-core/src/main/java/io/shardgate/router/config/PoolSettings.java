package io.shardgate.router.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code pool} section of a hostgroup: how many backend connections each of its servers may
 * have and how long a client waits for one.
 *
 * @param maxConnections connections per server, over all event loops
 * @param acquireTimeoutMillis how long a statement waits for a connection before the client gets
 *     an error (ProxySQL's connect_timeout_server_max)
 * @param idleTimeoutMillis an idle connection older than this is closed
 * @param maxLifetimeMillis a connection is retired at its next release after this long
 * @param multiplexing return connections to the pool between statements when the session allows
 *     it; false keeps one backend connection per client session
 */
public record PoolSettings(
        Integer maxConnections,
        Integer acquireTimeoutMillis,
        Integer idleTimeoutMillis,
        Integer maxLifetimeMillis,
        Boolean multiplexing) {

    public PoolSettings {
        maxConnections = maxConnections == null ? 200 : maxConnections;
        acquireTimeoutMillis = acquireTimeoutMillis == null ? 10_000 : acquireTimeoutMillis;
        idleTimeoutMillis = idleTimeoutMillis == null ? 60_000 : idleTimeoutMillis;
        maxLifetimeMillis = maxLifetimeMillis == null ? 1_800_000 : maxLifetimeMillis;
        multiplexing = multiplexing == null ? Boolean.TRUE : multiplexing;
    }

    /** These settings with another per-server connection bound (a reader's own {@code max_connections}). */
    public PoolSettings withMaxConnections(Integer max) {
        return max == null
                ? this
                : new PoolSettings(max, acquireTimeoutMillis, idleTimeoutMillis, maxLifetimeMillis, multiplexing);
    }

    static PoolSettings defaults() {
        return new PoolSettings(null, null, null, null, null);
    }

    List<String> validate(String at) {
        List<String> problems = new ArrayList<>();
        if (maxConnections < 1) {
            problems.add(at + ".pool.max_connections must be at least 1, was " + maxConnections);
        }
        if (acquireTimeoutMillis < 1 || idleTimeoutMillis < 1 || maxLifetimeMillis < 1) {
            problems.add(at + ".pool timeouts and lifetimes must be positive");
        }
        return problems;
    }
}
