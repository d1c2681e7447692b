package io.shardgate.router.health;

/**
 * What one passing health check saw.
 *
 * @param readOnly {@code @@read_only}
 * @param lagSeconds seconds behind the primary; null when the server is not a replica,
 *     {@link #REPLICATION_STOPPED} when its replication threads are not running
 * @param globalSqlMode {@code @@global.sql_mode}, or null when not read
 */
record CheckResult(boolean readOnly, Long lagSeconds, String globalSqlMode) {
    static final long REPLICATION_STOPPED = io.shardgate.router.routing.BackendServer.REPLICATION_STOPPED;
}
