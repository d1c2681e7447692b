package io.shardgate.router.routing;

import io.shardgate.router.pool.PoolStats;

/**
 * A snapshot of one backend server for the admin interface.
 *
 * @param hostgroup the hostgroup it belongs to
 * @param address {@code host:port}
 * @param role writer or reader, as of now (the monitor swaps them when read_only flips)
 * @param status ONLINE, SHUNNED, OFFLINE_SOFT or OFFLINE_HARD
 * @param weight share of reads among the readers
 * @param readOnly {@code @@read_only} at the last check, null before the first
 * @param lagSeconds replication lag at the last check: null when unknown or not a replica, -1 when
 *     replication is stopped
 * @param failures consecutive failed checks or connects
 * @param lastError why the last check or connect failed, or null
 * @param lastCheckMillis wall-clock time of the last check (0: never)
 * @param pool its connection pool's counters
 */
public record ServerInfo(
        int hostgroup,
        String address,
        ServerRole role,
        ServerStatus status,
        int weight,
        Boolean readOnly,
        Long lagSeconds,
        int failures,
        String lastError,
        long lastCheckMillis,
        PoolStats pool) {}
