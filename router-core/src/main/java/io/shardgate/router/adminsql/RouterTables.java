package io.shardgate.router.adminsql;

import io.shardgate.admin.http.CacheControl;
import io.shardgate.cache.CacheStats;
import io.shardgate.router.frontend.SessionInfo;
import io.shardgate.router.metrics.QueryDigestStats;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.pool.PoolStats;
import io.shardgate.router.routing.BackendServers;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.routing.ServerInfo;
import io.shardgate.router.routing.ServerStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The admin tables that show this router's own live state rather than the cluster's
 * configuration, and the statements that act on it: backend servers (whose status {@code UPDATE
 * runtime_servers} changes on this router), client sessions and their pinning, pools, digest and
 * cache statistics, {@code PURGE CACHE}. Called from the admin executor; every source is safe to
 * read from any thread.
 */
final class RouterTables {
    static final String SERVERS = "runtime_servers";
    static final String DIGESTS = "stats_query_digest";
    static final List<String> NAMES = List.of(
            SERVERS,
            "stats_cache",
            "stats_connections",
            "stats_pools",
            DIGESTS,
            "stats_sessions",
            InDoubtTable.NAME,
            MovesTable.NAME);

    private final Hostgroups hostgroups;
    private final BackendServers servers;
    private final IntSupplier clientConnections;
    private final Supplier<List<SessionInfo>> sessions;
    private final QueryDigestStats digests;
    private final CacheControl cache;
    private final InDoubtTable inDoubt;
    private final MovesTable moves;

    RouterTables(
            Hostgroups hostgroups,
            IntSupplier clientConnections,
            Supplier<List<SessionInfo>> sessions,
            QueryDigestStats digests,
            CacheControl cache,
            InDoubtTable inDoubt,
            MovesTable moves) {
        this.hostgroups = hostgroups;
        this.servers = new BackendServers(hostgroups);
        this.clientConnections = clientConnections;
        this.sessions = sessions;
        this.digests = digests;
        this.cache = cache;
        this.inDoubt = inDoubt;
        this.moves = moves;
    }

    /** The cluster's online moves (see {@link MovesTable}). */
    MovesTable moves() {
        return moves;
    }

    /** The two-phase transactions in doubt (see {@link InDoubtTable}). */
    InDoubtTable inDoubt() {
        return inDoubt;
    }

    /** Every row of table {@code name}, or null when it is not one of these. */
    AdminResult.Rows rows(String name) {
        return switch (name) {
            case SERVERS -> servers();
            case "stats_cache" -> cache();
            case "stats_connections" -> connections();
            case "stats_pools" -> pools();
            case DIGESTS -> digestRows();
            case "stats_sessions" -> sessions();
            case InDoubtTable.NAME -> inDoubt.rows();
            case MovesTable.NAME -> moves.rows();
            default -> null;
        };
    }

    /**
     * {@code UPDATE runtime_servers SET status = '...' WHERE ...}: sets the status of every server
     * the WHERE matches, on this router only; returns how many.
     */
    long updateServers(Map<String, Object> set, Map<String, Object> where) {
        if (!set.keySet().equals(java.util.Set.of("status"))) {
            throw new AdminSqlException(
                    1288, "The target table runtime_servers of the UPDATE is updatable in its status column only");
        }
        ServerStatus status = status(set.get("status"));
        AdminResult.Rows all = servers();
        List<String> names =
                all.columns().stream().map(TextResultSet.Column::name).toList();
        for (String column : where.keySet()) {
            if (!names.contains(column)) {
                throw new AdminSqlException(1054, "Unknown column '" + column + "' in 'where clause'");
            }
        }
        long matched = 0;
        for (List<Object> row : all.rows()) {
            if (matches(names, row, where)) {
                servers.setStatus(((Long) row.get(0)).intValue(), (String) row.get(1), status);
                matched++;
            }
        }
        return matched;
    }

    private static ServerStatus status(Object value) {
        if (value instanceof String s) {
            try {
                return ServerStatus.valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                // falls through to the error naming the accepted values
            }
        }
        throw new AdminSqlException(
                1366,
                "Incorrect value '" + value + "' for column 'status': ONLINE, SHUNNED, OFFLINE_SOFT or OFFLINE_HARD");
    }

    /** Equality of every {@code where} column, compared as text (1 = '1'). */
    static boolean matches(List<String> names, List<Object> row, Map<String, Object> where) {
        return where.entrySet().stream().allMatch(w -> {
            Object v = row.get(names.indexOf(w.getKey()));
            return v != null && w.getValue() != null && String.valueOf(v).equals(String.valueOf(w.getValue()));
        });
    }

    /** {@code PURGE CACHE ...}: the number of results dropped. */
    long purge(AdminStatement.Purge purge) {
        return switch (purge.scope()) {
            case ALL -> cache.purgeAll();
            case SCHEMA -> cache.purgeSchema(purge.schema());
            case TABLE -> cache.purgeTable(purge.schema(), purge.table());
            case RULE -> cache.purgeRule(purge.rule() - 1); // rule_id is 1-based, the cache's index 0-based
        };
    }

    long clearDigests() {
        long rows = digests.size();
        digests.clear(); // ProxySQL's reset of the digest statistics
        return rows;
    }

    private AdminResult.Rows servers() {
        List<String> names = List.of(
                "hostgroup",
                "address",
                "role",
                "status",
                "weight",
                "read_only",
                "lag_seconds",
                "failures",
                "last_error",
                "last_check_ms",
                "pool_open",
                "pool_idle",
                "pool_waiting");
        List<List<Object>> rows = new ArrayList<>();
        for (ServerInfo s : servers.list()) {
            List<Object> row = new ArrayList<>(names.size());
            row.add((long) s.hostgroup());
            row.add(s.address());
            row.add(s.role().name());
            row.add(s.status().name());
            row.add((long) s.weight());
            row.add(s.readOnly() == null ? null : (s.readOnly() ? 1L : 0L));
            row.add(s.lagSeconds());
            row.add((long) s.failures());
            row.add(s.lastError());
            row.add(s.lastCheckMillis());
            row.add((long) s.pool().open());
            row.add((long) s.pool().idle());
            row.add((long) s.pool().waiting());
            rows.add(row);
        }
        return new AdminResult.Rows(columns(names, "address", "role", "status", "last_error"), rows);
    }

    private AdminResult.Rows sessions() {
        List<String> names = List.of("id", "user", "schema", "client", "pinned", "pin_reasons", "backend_connections");
        List<List<Object>> rows = new ArrayList<>();
        for (SessionInfo s : sessions.get()) {
            List<Object> row = new ArrayList<>(names.size());
            row.add((long) s.connectionId());
            row.add(s.user());
            row.add(s.schema());
            row.add(s.client());
            row.add(s.pinned() ? 1L : 0L);
            row.add(s.pinReasons().isEmpty() ? null : String.join(", ", s.pinReasons()));
            row.add((long) s.backendConnections());
            rows.add(row);
        }
        return new AdminResult.Rows(columns(names, "user", "schema", "client", "pin_reasons"), rows);
    }

    private AdminResult.Rows connections() {
        List<String> names = List.of(
                "client_connections",
                "pinned_sessions",
                "backend_connections_held",
                "backend_connections_open",
                "clients_per_backend_connection");
        List<SessionInfo> all = sessions.get();
        long clients = clientConnections.getAsInt();
        long pinned = all.stream().filter(SessionInfo::pinned).count();
        long held = all.stream().mapToLong(SessionInfo::backendConnections).sum();
        long open = hostgroups.poolStats().stream().mapToLong(PoolStats::open).sum();
        List<Object> row = new ArrayList<>(names.size());
        row.add(clients);
        row.add(pinned);
        row.add(held);
        row.add(open);
        row.add(open == 0 ? null : String.format(Locale.ROOT, "%.2f", (double) clients / open));
        return new AdminResult.Rows(columns(names, "clients_per_backend_connection"), List.of(row));
    }

    private AdminResult.Rows pools() {
        List<String> names =
                List.of("pool", "open", "idle", "waiting", "created", "acquire_timeouts", "connect_failures");
        List<List<Object>> rows = new ArrayList<>();
        for (PoolStats s : hostgroups.poolStats()) {
            rows.add(List.of(
                    s.pool(),
                    (long) s.open(),
                    (long) s.idle(),
                    (long) s.waiting(),
                    s.created(),
                    s.timeouts(),
                    s.connectFailures()));
        }
        return new AdminResult.Rows(columns(names, "pool"), rows);
    }

    private AdminResult.Rows digestRows() {
        List<String> names = List.of(
                "schema",
                "digest_text",
                "hostgroup",
                "count",
                "errors",
                "sum_time_us",
                "min_time_us",
                "max_time_us",
                "p50_time_us",
                "p95_time_us",
                "p99_time_us",
                "rows_sent",
                "rows_affected");
        List<List<Object>> rows = new ArrayList<>();
        for (QueryDigestStats.Row r : digests.rows()) {
            rows.add(java.util.Arrays.asList(
                    r.schema(),
                    r.digest(),
                    (long) r.hostgroup(),
                    r.count(),
                    r.errors(),
                    r.sumMicros(),
                    r.minMicros(),
                    r.maxMicros(),
                    r.p50Micros(),
                    r.p95Micros(),
                    r.p99Micros(),
                    r.rowsSent(),
                    r.rowsAffected()));
        }
        return new AdminResult.Rows(columns(names, "schema", "digest_text"), rows);
    }

    /** Totals (rule_id NULL) first, then one row per query rule that cached anything. */
    private AdminResult.Rows cache() {
        List<String> names = List.of(
                "rule_id",
                "enabled",
                "hits",
                "waits",
                "misses",
                "stores",
                "rejected",
                "evictions",
                "invalidations",
                "entries",
                "bytes");
        List<List<Object>> rows = new ArrayList<>();
        long enabled = cache.enabled() ? 1L : 0L;
        rows.add(cacheRow(null, enabled, cache.stats()));
        new TreeMap<>(cache.statsByRule()).forEach((index, s) -> rows.add(cacheRow((long) index + 1, enabled, s)));
        return new AdminResult.Rows(columns(names), rows);
    }

    private static List<Object> cacheRow(Long rule, long enabled, CacheStats s) {
        List<Object> row = new ArrayList<>(11);
        row.add(rule);
        row.add(enabled);
        row.add(s.hits());
        row.add(s.waits());
        row.add(s.misses());
        row.add(s.stores());
        row.add(s.rejected());
        row.add(s.evictions());
        row.add(s.invalidations());
        row.add(s.entries());
        row.add(s.bytes());
        return row;
    }

    /** Integer columns, except those named in {@code text}. */
    private static List<TextResultSet.Column> columns(List<String> names, String... text) {
        List<String> texts = List.of(text);
        List<TextResultSet.Column> columns = new ArrayList<>(names.size());
        for (String n : names) {
            columns.add(texts.contains(n) ? TextResultSet.Column.text(n) : TextResultSet.Column.integer(n));
        }
        return columns;
    }
}
