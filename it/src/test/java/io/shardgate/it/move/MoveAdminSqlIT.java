package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.move.MoveRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Moves from the SQL admin port, through MySQL Connector/J: {@code INSERT INTO stats_moves} starts
 * one, {@code SELECT ... FROM stats_moves} watches it (rows copied, rows/s, diff status, hold...),
 * {@code UPDATE stats_moves SET state = 'cancelled'} cancels one, and what the move control refuses
 * comes back as MySQL errors with the reason.
 */
class MoveAdminSqlIT {
    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final int BUCKETS = 16;
    private static final int ROWS = 3000;

    @TempDir
    static Path dir;

    private static MoveShards shards;
    private static Shardgate router;

    @BeforeAll
    static void start() throws Exception {
        shards = MoveShards.start(
                "CREATE TABLE orders (id BIGINT PRIMARY KEY, amount INT NOT NULL, note VARCHAR(40)) ENGINE=InnoDB");
        router = Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, http_port: 0, admin_port: 0, data_dir: \""
                        + Files.createDirectories(dir.resolve("router")) + "\"}",
                "users: [{name: app, password: app}]",
                "admin: {users: [{name: radmin, password: radmin}]}",
                "hostgroups:",
                shards.hostgroupsYaml(),
                "schemas:",
                "  - name: shop",
                "    default_hostgroup: 10",
                "    tables:",
                "      - {name: orders, strategy: hash, column: id, buckets: " + BUCKETS
                        + ", hostgroups: {10: \"0-7\", 20: \"8-15\"}}",
                "")));
        try (Connection c = Driver.MARIADB.connect(router.mysqlPort(), "shop", "app", "app");
                Statement s = c.createStatement()) {
            for (int from = 1; from <= ROWS; from += 500) {
                StringBuilder sql = new StringBuilder("INSERT INTO orders VALUES ");
                for (int id = from; id < from + 500; id++) {
                    sql.append(id == from ? "" : ",")
                            .append("(")
                            .append(id)
                            .append(",")
                            .append(id)
                            .append(",'x')");
                }
                s.executeUpdate(sql.toString());
            }
        }
    }

    @AfterAll
    static void stop() {
        if (router != null) {
            router.close();
        }
        if (shards != null) {
            shards.close();
        }
    }

    @Test
    void movesAreStartedWatchedAndCancelledFromTheSqlAdminPort() throws Exception {
        try (Connection admin = Driver.MYSQL.connect(router.adminPort(), null, "radmin", "radmin");
                Statement s = admin.createStatement()) {
            assertThat(tables(s)).contains("stats_moves");
            assertThat(s.executeUpdate("INSERT INTO stats_moves (schema_name, table_name, buckets, to_hostgroup,"
                            + " copy_rows_per_second) VALUES ('shop', 'orders', '12-13', 30, 300)"))
                    .isEqualTo(1);
            Map<String, String> copying = await(s, "SELECT * FROM stats_moves", m -> m.get("rows_per_second") != null);
            assertThat(copying)
                    .containsEntry("schema_name", "shop")
                    .containsEntry("tables", "orders")
                    .containsEntry("buckets", "12-13")
                    .containsEntry("from_hostgroups", "20")
                    .containsEntry("to_hostgroup", "30")
                    .containsEntry("state", "copying")
                    .containsEntry("diff_status", "pending")
                    .containsEntry("held_statements", "0")
                    .containsEntry("error", null);
            assertThat(Long.parseLong(copying.get("rows_copied"))).isPositive();
            String first = copying.get("id");

            SQLException busy = refused(
                    s,
                    "INSERT INTO stats_moves (schema_name, table_name, buckets, to_hostgroup)"
                            + " VALUES ('shop', 'orders', '14-15', 30)");
            assertThat(busy.getErrorCode()).isEqualTo(1105);
            assertThat(busy.getMessage()).startsWith("move refused: move " + first + " of [orders] is under way");

            assertThat(s.executeUpdate("UPDATE stats_moves SET state = 'cancelled' WHERE id = '" + first + "'"))
                    .isEqualTo(1);
            assertThat(rows(s, "SELECT id, state FROM stats_moves WHERE id = '" + first + "'"))
                    .containsExactly(Map.of("id", first, "state", "cancelled"));

            assertThat(s.executeUpdate("INSERT INTO stats_moves (schema_name, table_name, buckets, to_hostgroup)"
                            + " VALUES ('shop', 'orders', '14-15', 30)"))
                    .isEqualTo(1);
            Map<String, String> done = await(
                    s, "SELECT * FROM stats_moves WHERE buckets = '14-15'", m -> MoveRecord.ended(m.get("state")));
            assertThat(done).containsEntry("state", "done").containsEntry("error", null);
            assertThat(done.get("diff_status")).matches("equal \\(\\d+ rows\\)");
            assertThat(Long.parseLong(done.get("rows_copied"))).isPositive();
            assertThat(Long.parseLong(done.get("rows_deleted_on_source"))).isPositive();
            assertThat(done.get("hold_ms")).isNotNull();
            long onTarget;
            try (Connection c = shards.direct(30);
                    Statement t = c.createStatement();
                    ResultSet rs = t.executeQuery("SELECT COUNT(*) FROM orders")) {
                rs.next();
                onTarget = rs.getLong(1);
            }
            assertThat(onTarget)
                    .as("the cancelled move's copied rows stay on the target, the done move's are there")
                    .isGreaterThanOrEqualTo(Long.parseLong(done.get("rows_deleted_on_source")));

            SQLException ended =
                    refused(s, "UPDATE stats_moves SET state = 'cancelled' WHERE id = '" + done.get("id") + "'");
            assertThat(ended.getErrorCode()).isEqualTo(1105);
            assertThat(ended.getMessage()).isEqualTo("cannot cancel: move " + done.get("id") + " is done already");
            SQLException undeclared = refused(
                    s,
                    "INSERT INTO stats_moves (schema_name, table_name, buckets, to_hostgroup)"
                            + " VALUES ('shop', 'orders', '0-3', 99)");
            assertThat(undeclared.getErrorCode()).isEqualTo(1105);
            assertThat(undeclared.getMessage()).contains("hostgroup 99 is not declared");
            SQLException missing = refused(
                    s, "INSERT INTO stats_moves (schema_name, table_name, buckets) VALUES ('shop', 'orders', '0-3')");
            assertThat(missing.getErrorCode()).isEqualTo(1364);
            SQLException column = refused(s, "UPDATE stats_moves SET buckets = '0-1' WHERE id = '" + first + "'");
            assertThat(column.getErrorCode()).isEqualTo(1288);
            assertThat(rows(s, "SELECT id FROM stats_moves")).hasSize(2);
        }
    }

    private static SQLException refused(Statement s, String sql) {
        try {
            s.execute(sql);
        } catch (SQLException e) {
            return e;
        }
        throw new AssertionError("not refused: " + sql);
    }

    private static List<String> tables(Statement s) throws SQLException {
        List<String> names = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SHOW TABLES")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }

    /** The last row {@code sql} answers, polled until {@code reached}. */
    private static Map<String, String> await(Statement s, String sql, Predicate<Map<String, String>> reached)
            throws Exception {
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            List<Map<String, String>> rows = rows(s, sql);
            if (!rows.isEmpty() && reached.test(rows.get(rows.size() - 1))) {
                return rows.get(rows.size() - 1);
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("not within " + PATIENCE + ": " + rows);
            }
            Thread.sleep(50);
        }
    }

    private static List<Map<String, String>> rows(Statement s, String sql) throws SQLException {
        List<Map<String, String>> rows = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                Map<String, String> row = new LinkedHashMap<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.put(meta.getColumnLabel(i), rs.getString(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }
}
