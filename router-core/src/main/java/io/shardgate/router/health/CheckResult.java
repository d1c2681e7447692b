package io.shardgate.router.health;

/**
 * What one passing health check saw.
 *
 * @param readOnly {@code @@read_only}
 * @param lagSeconds seconds behind the primary; null when the server is not a replica,
 *     {@link #REPLICATION_STOPPED} when its replication threads are not running
 */
record CheckResult(boolean readOnly, Long lagSeconds) {
    static final long REPLICATION_STOPPED = io.shardgate.router.routing.BackendServer.REPLICATION_STOPPED;
}
