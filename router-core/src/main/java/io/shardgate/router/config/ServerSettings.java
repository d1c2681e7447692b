package io.shardgate.router.config;

import io.shardgate.router.net.TransportChoice;
import io.shardgate.sharding.key.SnowflakeIds;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The {@code server} section: where the router listens, its limits, and what it announces to
 * MySQL clients.
 *
 * @param bind address for every listener; loopback unless configured otherwise
 * @param port MySQL clients (0 picks a free port, for tests)
 * @param adminPort SQL admin endpoint
 * @param httpPort metrics, health and config API
 * @param maxConnections client connections accepted at once; more get ER_CON_COUNT_ERROR
 * @param maxAllowedPacket largest client packet; larger gets ER_NET_PACKET_TOO_LARGE
 * @param authPlugin plugin announced in the handshake (mysql_native_password or
 *     caching_sha2_password)
 * @param serverVersion version announced to clients; null mirrors the default hostgroup's server
 * @param dataDir state kept across restarts: TLS certificate, RSA keys, embedded ZooKeeper
 * @param connectTimeoutMillis time to open and authenticate a backend connection
 * @param handshakeTimeoutMillis time a client has to complete authentication
 * @param ioThreads event loop threads; 0 means one per core
 * @param tls TLS offered to clients
 * @param nodeId this router's number in the cluster (0..1023), part of every key it generates; each
 *     router of a cluster needs its own
 * @param maxMergeBytes most bytes one multi-shard statement's merge may hold (rows waiting to be
 *     merged; whole results for GROUP BY, aggregates and DISTINCT); beyond it the statement fails
 *     with ER_OUT_OF_RESOURCES
 * @param queryTimeoutMillis longest a backend may stay silent while a statement's response is
 *     outstanding; then the statement fails with ER_QUERY_TIMEOUT and its backend connection is
 *     closed (a stopped or unreachable server must not hold a client forever); 0 turns it off
 * @param maxStatementBytes longest SQL text (COM_QUERY, COM_STMT_PREPARE) a client may send; longer
 *     gets ER_NET_PACKET_TOO_LARGE and the session stays open; 0 leaves only max_allowed_packet
 * @param maxLoginFailures failed logins from one client address within {@code
 *     loginFailureWindowMillis} after which that address is refused with ER_HOST_IS_BLOCKED until
 *     the window has passed; 0 disables the block
 * @param loginFailureWindowMillis how long failed logins count, and how long a block lasts
 * @param readyRequiresOnlineBackends true: {@code GET /ready} answers 503 while some schema's
 *     default hostgroup has no ONLINE server, so a load balancer takes the router out until one is
 *     back; false (the default): ready once a configuration version is loaded
 * @param schemaTrackingIntervalMillis how often the router re-reads the column lists of the listed
 *     tables from every hostgroup (schema tracking, which INSERT without a column list into a
 *     sharded table needs); it also re-reads them at start and after each DDL it runs on several
 *     hostgroups; 0 keeps only those
 * @param drainTimeoutMillis on SIGTERM (graceful drain): how long sessions in a transaction may
 *     take to end it before they are closed (idle sessions are closed at once, the others between
 *     statements)
 * @param runMoves whether this router may run online moves (be the cluster's mover, docs/moves.md);
 *     every router follows the moves either way (holds, DDL refusal)
 * @param transport socket transport: {@code auto} (the faster native one that loads), {@code
 *     io_uring}, {@code epoll} or {@code nio}; one that cannot load falls back, logged
 */
public record ServerSettings(
        String bind,
        Integer port,
        Integer adminPort,
        Integer httpPort,
        Integer maxConnections,
        Integer maxAllowedPacket,
        String authPlugin,
        String serverVersion,
        String dataDir,
        Integer connectTimeoutMillis,
        Integer handshakeTimeoutMillis,
        Integer ioThreads,
        TlsConfig tls,
        Integer nodeId,
        Long maxMergeBytes,
        Integer queryTimeoutMillis,
        Integer maxStatementBytes,
        Integer maxLoginFailures,
        Integer loginFailureWindowMillis,
        Boolean readyRequiresOnlineBackends,
        Integer schemaTrackingIntervalMillis,
        Integer drainTimeoutMillis,
        Boolean runMoves,
        String transport) {

    static final Set<String> AUTH_PLUGINS = Set.of("mysql_native_password", "caching_sha2_password");

    public ServerSettings {
        bind = bind == null ? "127.0.0.1" : bind;
        port = port == null ? 6033 : port;
        adminPort = adminPort == null ? 6032 : adminPort;
        httpPort = httpPort == null ? 6080 : httpPort;
        maxConnections = maxConnections == null ? 10_000 : maxConnections;
        maxAllowedPacket = maxAllowedPacket == null ? 64 * 1024 * 1024 : maxAllowedPacket;
        authPlugin = authPlugin == null ? "mysql_native_password" : authPlugin;
        dataDir = dataDir == null ? "data" : dataDir;
        connectTimeoutMillis = connectTimeoutMillis == null ? 5_000 : connectTimeoutMillis;
        handshakeTimeoutMillis = handshakeTimeoutMillis == null ? 10_000 : handshakeTimeoutMillis;
        ioThreads = ioThreads == null ? 0 : ioThreads;
        tls = tls == null ? TlsConfig.defaults() : tls;
        nodeId = nodeId == null ? 0 : nodeId;
        maxMergeBytes = maxMergeBytes == null ? 256L * 1024 * 1024 : maxMergeBytes;
        queryTimeoutMillis = queryTimeoutMillis == null ? 3_600_000 : queryTimeoutMillis;
        maxStatementBytes = maxStatementBytes == null ? 0 : maxStatementBytes;
        // MySQL's max_connect_errors default; the window keeps a mistyped password from locking out for long
        maxLoginFailures = maxLoginFailures == null ? 100 : maxLoginFailures;
        loginFailureWindowMillis = loginFailureWindowMillis == null ? 60_000 : loginFailureWindowMillis;
        readyRequiresOnlineBackends = readyRequiresOnlineBackends != null && readyRequiresOnlineBackends;
        schemaTrackingIntervalMillis = schemaTrackingIntervalMillis == null ? 60_000 : schemaTrackingIntervalMillis;
        drainTimeoutMillis = drainTimeoutMillis == null ? 30_000 : drainTimeoutMillis;
        runMoves = runMoves == null || runMoves;
        transport = transport == null ? "auto" : transport;
    }

    static ServerSettings defaults() {
        return new ServerSettings(
                null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null);
    }

    List<String> validate() {
        List<String> problems = new ArrayList<>();
        checkPort(problems, "server.port", port);
        checkPort(problems, "server.admin_port", adminPort);
        checkPort(problems, "server.http_port", httpPort);
        if (maxConnections < 1) {
            problems.add("server.max_connections must be at least 1, was " + maxConnections);
        }
        if (maxAllowedPacket < 1024 || maxAllowedPacket > 1024 * 1024 * 1024) {
            problems.add(
                    "server.max_allowed_packet must be between 1024 and 1073741824 bytes, was " + maxAllowedPacket);
        }
        if (!AUTH_PLUGINS.contains(authPlugin)) {
            problems.add("server.auth_plugin must be one of " + AUTH_PLUGINS + ", was '" + authPlugin + "'");
        }
        if (connectTimeoutMillis < 1 || handshakeTimeoutMillis < 1) {
            problems.add("server.connect_timeout_millis and handshake_timeout_millis must be positive");
        }
        if (queryTimeoutMillis < 0) {
            problems.add("server.query_timeout_millis must be 0 (no limit) or positive, was " + queryTimeoutMillis);
        }
        if (maxMergeBytes < 64 * 1024) {
            problems.add("server.max_merge_bytes must be at least 65536 bytes, was " + maxMergeBytes);
        }
        if (maxStatementBytes < 0 || maxStatementBytes > maxAllowedPacket) {
            problems.add("server.max_statement_bytes must be 0 (no limit but max_allowed_packet) or up to"
                    + " server.max_allowed_packet (" + maxAllowedPacket + "), was " + maxStatementBytes);
        }
        if (maxLoginFailures < 0) {
            problems.add("server.max_login_failures must be 0 (no block) or more, was " + maxLoginFailures);
        }
        if (loginFailureWindowMillis < 1) {
            problems.add("server.login_failure_window_millis must be positive, was " + loginFailureWindowMillis);
        }
        if (drainTimeoutMillis < 0) {
            problems.add("server.drain_timeout_millis must be 0 (close every session at once) or positive, was "
                    + drainTimeoutMillis);
        }
        if (schemaTrackingIntervalMillis < 0) {
            problems.add("server.schema_tracking_interval_millis must be 0 (at start and after DDL only) or"
                    + " positive, was " + schemaTrackingIntervalMillis);
        }
        if (ioThreads < 0) {
            problems.add("server.io_threads must be 0 (one per core) or more, was " + ioThreads);
        }
        if (!TransportChoice.NAMES.contains(transport)) {
            problems.add("server.transport must be one of " + TransportChoice.NAMES + ", was '" + transport + "'");
        }
        if (nodeId < 0 || nodeId > SnowflakeIds.MAX_NODE_ID) {
            problems.add(
                    "server.node_id must be 0.." + SnowflakeIds.MAX_NODE_ID + " (unique per router), was " + nodeId);
        }
        if ((tls.cert() == null) != (tls.key() == null)) {
            problems.add("server.tls: set both cert and key, or neither (a self-signed pair is generated)");
        }
        return problems;
    }

    private static void checkPort(List<String> problems, String key, int port) {
        if (port < 0 || port > 65535) {
            problems.add(key + " must be a TCP port (0..65535), was " + port);
        }
    }
}
