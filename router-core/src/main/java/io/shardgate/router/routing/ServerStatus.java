package io.shardgate.router.routing;

/** Whether a backend server takes work, as ProxySQL's mysql_servers.status. */
public enum ServerStatus {
    /** Serves new statements. */
    ONLINE,
    /** Failing its health checks: no new work; back ONLINE by itself after a passing check. */
    SHUNNED,
    /** Draining: no new work, statements and transactions running on it finish normally. */
    OFFLINE_SOFT,
    /** Out: every connection to it is closed at once, running statements fail. */
    OFFLINE_HARD
}
