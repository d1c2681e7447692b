package io.shardgate.router.adminsql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.admin.http.CacheControl;
import io.shardgate.cache.CacheStats;
import io.shardgate.router.frontend.SessionInfo;
import io.shardgate.router.metrics.QueryDigestStats;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.routing.Hostgroups;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RouterTablesTest {
    /** Records the purges it is asked for; its counters are fixed. */
    private static final class RecordingCache implements CacheControl {
        final List<String> calls = new ArrayList<>();

        @Override
        public boolean enabled() {
            return true;
        }

        @Override
        public int purgeAll() {
            calls.add("all");
            return 4;
        }

        @Override
        public int purgeSchema(String schema) {
            calls.add("schema " + schema);
            return 3;
        }

        @Override
        public int purgeTable(String schema, String table) {
            calls.add("table " + schema + "." + table);
            return 2;
        }

        @Override
        public int purgeRule(int rule) {
            calls.add("rule index " + rule);
            return 1;
        }

        @Override
        public CacheStats stats() {
            return new CacheStats(5, 1, 2, 2, 0, 0, 1, 2, 300);
        }

        @Override
        public Map<Integer, CacheStats> statsByRule() {
            return Map.of(
                    2, new CacheStats(1, 0, 1, 1, 0, 0, 0, 1, 100), 0, new CacheStats(4, 1, 1, 1, 0, 0, 1, 1, 200));
        }
    }

    private final RecordingCache cache = new RecordingCache();
    private final QueryDigestStats digests = new QueryDigestStats(100);
    private final List<SessionInfo> sessions = List.of(
            new SessionInfo(
                    7, "app", "shop", "127.0.0.1:50000", true, List.of("open transaction", "user variable used"), 1),
            new SessionInfo(8, "app", null, "127.0.0.1:50001", false, List.of(), 0));
    private final RouterTables tables = new RouterTables(
            new Hostgroups(List.of(), null),
            () -> 2,
            () -> sessions,
            digests,
            cache,
            new InDoubtTable(null),
            new MovesTable(null, () -> 0));

    private static List<String> names(AdminResult.Rows rows) {
        return rows.columns().stream().map(TextResultSet.Column::name).toList();
    }

    @Test
    void sessionsShowPinningAndReasons() {
        AdminResult.Rows rows = tables.rows("stats_sessions");
        assertThat(names(rows))
                .containsExactly("id", "user", "schema", "client", "pinned", "pin_reasons", "backend_connections");
        assertThat(rows.rows())
                .containsExactly(
                        List.of(7L, "app", "shop", "127.0.0.1:50000", 1L, "open transaction, user variable used", 1L),
                        Arrays.asList(8L, "app", null, "127.0.0.1:50001", 0L, null, 0L));
        AdminResult.Rows connections = tables.rows("stats_connections");
        assertThat(connections.rows())
                .containsExactly(Arrays.asList(2L, 1L, 1L, 0L, null)); // no backend connection open: no ratio
    }

    @Test
    void digestRowsCarryPercentilesAndRows() {
        digests.record("shop", 1, "SELECT c FROM t WHERE id = ?", 10, 3_000, false, 1, 0);
        AdminResult.Rows rows = tables.rows("stats_query_digest");
        assertThat(names(rows))
                .containsExactly(
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
        assertThat(rows.rows())
                .containsExactly(
                        List.of("shop", "SELECT c FROM t WHERE id = ?", 10L, 1L, 0L, 3L, 3L, 3L, 3L, 3L, 3L, 1L, 0L));
        assertThat(tables.clearDigests()).isEqualTo(1);
        assertThat(tables.rows("stats_query_digest").rows()).isEmpty();
    }

    @Test
    void cacheTableHasTotalsThenOneRowPerRuleId() {
        AdminResult.Rows rows = tables.rows("stats_cache");
        assertThat(names(rows))
                .containsExactly(
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
        assertThat(rows.rows())
                .containsExactly(
                        Arrays.asList(null, 1L, 5L, 1L, 2L, 2L, 0L, 0L, 1L, 2L, 300L),
                        List.of(1L, 1L, 4L, 1L, 1L, 1L, 0L, 0L, 1L, 1L, 200L),
                        List.of(3L, 1L, 1L, 0L, 1L, 1L, 0L, 0L, 0L, 1L, 100L));
    }

    @Test
    void purgeCacheCallsTheCacheWithRuleIdsAsIndexes() {
        assertThat(tables.purge((AdminStatement.Purge) AdminSqlParser.parse("PURGE CACHE")))
                .isEqualTo(4);
        assertThat(tables.purge((AdminStatement.Purge) AdminSqlParser.parse("PURGE CACHE SCHEMA shop")))
                .isEqualTo(3);
        assertThat(tables.purge((AdminStatement.Purge) AdminSqlParser.parse("purge cache table shop.Orders")))
                .isEqualTo(2);
        assertThat(tables.purge((AdminStatement.Purge) AdminSqlParser.parse("PURGE CACHE RULE 1")))
                .isEqualTo(1);
        assertThat(cache.calls).containsExactly("all", "schema shop", "table shop.Orders", "rule index 0");
    }

    @Test
    void serversAreUpdatableInTheirStatusOnly() {
        assertThat(tables.rows("runtime_servers").rows()).isEmpty();
        assertThat(tables.updateServers(Map.of("status", "offline_soft"), Map.of("hostgroup", 10L)))
                .isZero();
        assertThatThrownBy(() -> tables.updateServers(Map.of("weight", 2L), Map.of()))
                .isInstanceOfSatisfying(
                        AdminSqlException.class, e -> assertThat(e.code()).isEqualTo(1288));
        assertThatThrownBy(() -> tables.updateServers(Map.of("status", "ASLEEP"), Map.of()))
                .isInstanceOfSatisfying(
                        AdminSqlException.class, e -> assertThat(e.code()).isEqualTo(1366));
        assertThatThrownBy(() -> tables.updateServers(Map.of("status", "ONLINE"), Map.of("nope", 1L)))
                .isInstanceOfSatisfying(
                        AdminSqlException.class, e -> assertThat(e.code()).isEqualTo(1054));
        assertThat(tables.rows("no_such_table")).isNull();
    }
}
