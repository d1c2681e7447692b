package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What GUI clients and ORMs ask to learn a schema, through the router against two shards, equals
 * what one unsharded MariaDB holding the same tables answers: {@code DatabaseMetaData} of both
 * drivers (Connector/J asks with SHOW statements, MariaDB Connector/J with information_schema
 * queries), SHOW DATABASES / TABLES / COLUMNS / INDEX / CREATE TABLE, DESCRIBE, information_schema
 * lookups, SELECT DATABASE() and session variables, and the mariadb CLI. The sharded and
 * table-strategy tables live only on shards (never on the default hostgroup), so a router that
 * asked one server would miss them or list them twice.
 */
class IntrospectionIT {
    private static final String SCHEMA = "atlas";
    private static final List<String> TABLES = List.of("orders", "items", "countries", "notes");
    private static final String[] DDL = {
        "CREATE TABLE orders (id BIGINT NOT NULL, customer_id BIGINT NOT NULL, total DECIMAL(10,2) DEFAULT NULL"
                + " COMMENT 'in EUR', placed DATETIME, PRIMARY KEY (customer_id, id), KEY ix_placed (placed))"
                + " COMMENT 'sharded by customer'",
        "CREATE TABLE items (sku VARCHAR(20) NOT NULL PRIMARY KEY, title TEXT, UNIQUE KEY ux_title (title(50)))",
        "CREATE TABLE countries (code CHAR(2) NOT NULL PRIMARY KEY, name VARCHAR(60) NOT NULL)",
        "CREATE TABLE notes (id INT AUTO_INCREMENT PRIMARY KEY, body VARCHAR(200))"
    };

    @TempDir
    static Path dataDir;

    private static ShardedCluster cluster;
    private static MariaDbServer reference;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShardedCluster(
                dataDir,
                SCHEMA,
                2,
                List.of(
                        "{name: orders, strategy: hash, column: customer_id, buckets: 4, hostgroups: {10: \"0-1\", 20:"
                                + " \"2-3\"}}",
                        "{name: items, strategy: table, hostgroup: 20}",
                        "{name: countries, strategy: broadcast}"),
                List.of());
        reference = MariaDbServer.builder()
                .database(SCHEMA)
                .user(ShardedCluster.BACKEND_USER, ShardedCluster.BACKEND_PASSWORD)
                .innodbBufferPoolSize("32M")
                .start();
        try (Connection c = reference();
                Statement s = c.createStatement()) {
            for (String ddl : DDL) {
                s.execute(ddl);
            }
        }
        // each table only where the rules put it: orders and countries on both, items on 20, notes on 10
        cluster.onShard(10, DDL[0], DDL[2], DDL[3]);
        cluster.onShard(20, DDL[0], DDL[1], DDL[2]);
        String[] rows = {
            "INSERT INTO orders (id, customer_id, total, placed) VALUES (1, 1, 10.5, '2024-01-01 10:00:00'), (2, 2, 20, NULL), (3, 3, 30, NULL)",
            "INSERT INTO items VALUES ('a1', 'first'), ('b2', 'second')",
            "INSERT INTO countries VALUES ('NL', 'Netherlands'), ('FR', 'France')",
            "INSERT INTO notes (body) VALUES ('x'), ('y')"
        };
        try (Connection router = cluster.proxied(Driver.MARIADB);
                Connection ref = reference();
                Statement r = router.createStatement();
                Statement f = ref.createStatement()) {
            for (String sql : rows) {
                r.executeUpdate(sql);
                f.executeUpdate(sql);
            }
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
        if (reference != null) {
            reference.close();
        }
    }

    private static Connection reference() throws SQLException {
        return reference(Driver.MARIADB);
    }

    private static Connection reference(Driver driver) throws SQLException {
        return driver.connect(reference.port(), SCHEMA, ShardedCluster.BACKEND_USER, ShardedCluster.BACKEND_PASSWORD);
    }

    /** Rows as text, columns restricted to {@code columns} (all when empty), labels first. */
    private static List<List<String>> rows(ResultSet rs, Set<String> skip) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        List<List<String>> out = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        List<Integer> kept = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            if (!skip.contains(md.getColumnLabel(i).toUpperCase(Locale.ROOT))) {
                kept.add(i);
                labels.add(md.getColumnLabel(i));
            }
        }
        out.add(labels);
        while (rs.next()) {
            List<String> row = new ArrayList<>();
            for (int i : kept) {
                row.add(rs.getString(i));
            }
            out.add(row);
        }
        rs.close();
        return out;
    }

    /** Figures that differ between a shard and a server holding every row, and times. */
    private static final Set<String> VOLATILE = Set.of(
            "CARDINALITY",
            "ROWS",
            "PAGES",
            "TABLE_ROWS",
            "AVG_ROW_LENGTH",
            "DATA_LENGTH",
            "INDEX_LENGTH",
            "DATA_FREE",
            "AUTO_INCREMENT",
            "CREATE_TIME",
            "UPDATE_TIME",
            "CHECK_TIME",
            "MAX_DATA_LENGTH",
            "MAX_INDEX_LENGTH",
            "TEMPORARY",
            "CHECKSUM");

    private interface MetaQuery {
        ResultSet run(DatabaseMetaData md) throws SQLException;
    }

    private static void sameMetaData(Driver driver, String what, MetaQuery query) throws SQLException {
        try (Connection viaRouter = cluster.proxied(driver);
                Connection direct = reference(driver)) {
            List<List<String>> expected = rows(query.run(direct.getMetaData()), VOLATILE);
            List<List<String>> actual = rows(query.run(viaRouter.getMetaData()), VOLATILE);
            assertThat(actual).as(driver + " " + what).isEqualTo(expected);
            assertThat(expected.size())
                    .as(driver + " " + what + ": the reference has rows")
                    .isGreaterThan(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void databaseMetaDataOfEveryTableEqualsOneServers(Driver driver) throws SQLException {
        sameMetaData(driver, "getTables", md -> md.getTables(SCHEMA, null, "%", null));
        sameMetaData(driver, "getTables(TABLE)", md -> md.getTables(SCHEMA, null, "%", new String[] {"TABLE"}));
        for (String table : TABLES) {
            sameMetaData(driver, "getColumns " + table, md -> md.getColumns(SCHEMA, null, table, "%"));
            sameMetaData(driver, "getPrimaryKeys " + table, md -> md.getPrimaryKeys(SCHEMA, null, table));
            sameMetaData(driver, "getIndexInfo " + table, md -> md.getIndexInfo(SCHEMA, null, table, false, false));
        }
        sameMetaData(driver, "getCatalogs", DatabaseMetaData::getCatalogs);
    }

    private static void sameAnswer(String sql) throws SQLException {
        for (Driver driver : Driver.values()) {
            try (Connection viaRouter = cluster.proxied(driver);
                    Connection direct = reference(driver);
                    Statement r = viaRouter.createStatement();
                    Statement d = direct.createStatement()) {
                List<List<String>> expected = rows(d.executeQuery(sql), VOLATILE);
                List<List<String>> actual = rows(r.executeQuery(sql), VOLATILE);
                assertThat(actual).as(driver + ": " + sql).isEqualTo(expected);
            }
        }
    }

    @Test
    void showStatementsAnswerTheLogicalSchema() throws SQLException {
        sameAnswer("SHOW DATABASES");
        sameAnswer("SHOW DATABASES LIKE 'at%'");
        sameAnswer("SHOW TABLES");
        sameAnswer("SHOW FULL TABLES FROM " + SCHEMA);
        for (String table : TABLES) {
            sameAnswer("SHOW COLUMNS FROM " + table);
            sameAnswer("SHOW FULL COLUMNS FROM `" + table + "` FROM `" + SCHEMA + "` LIKE '%'");
            sameAnswer("DESCRIBE " + table);
            sameAnswer("DESC " + SCHEMA + "." + table);
            sameAnswer("SHOW INDEX FROM " + table);
            sameAnswer("SHOW KEYS FROM `" + table + "` IN `" + SCHEMA + "`");
        }
        sameAnswer("SHOW TABLE STATUS");
        sameAnswer("SHOW TABLE STATUS FROM " + SCHEMA + " LIKE '%s'");
        sameAnswer("SHOW TABLE STATUS WHERE Comment LIKE 'sharded%'");
        sameAnswer("SHOW CREATE TABLE items");
        sameAnswer("SHOW CREATE TABLE countries");
    }

    @Test
    void informationSchemaListsEachTableOnce() throws SQLException {
        sameAnswer("SELECT TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_COMMENT FROM information_schema.TABLES"
                + " WHERE TABLE_SCHEMA = '" + SCHEMA + "' ORDER BY TABLE_NAME");
        sameAnswer("SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY,"
                + " COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '" + SCHEMA + "'"
                + " ORDER BY TABLE_NAME, ORDINAL_POSITION");
        sameAnswer("SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE FROM"
                + " information_schema.STATISTICS WHERE TABLE_SCHEMA = '" + SCHEMA + "' ORDER BY TABLE_NAME,"
                + " INDEX_NAME, SEQ_IN_INDEX");
        sameAnswer("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = '" + SCHEMA + "'");
        sameAnswer("SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME FROM information_schema.SCHEMATA ORDER BY 1");
        sameAnswer("SELECT t.TABLE_NAME, c.COLUMN_NAME FROM information_schema.TABLES t JOIN"
                + " information_schema.COLUMNS c ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME"
                + " WHERE t.TABLE_SCHEMA = '" + SCHEMA + "' AND c.COLUMN_KEY = 'PRI' ORDER BY t.TABLE_NAME,"
                + " c.COLUMN_NAME");
    }

    @Test
    void sessionQueriesAnswerForTheClientsSession() throws SQLException {
        sameAnswer("SELECT DATABASE()");
        sameAnswer("SELECT @@session.autocommit, @@character_set_client, @@max_allowed_packet > 0");
        for (Driver driver : Driver.values()) {
            try (Connection viaRouter = cluster.proxied(driver);
                    Statement s = viaRouter.createStatement()) {
                s.execute("SET SESSION sql_mode = 'ANSI_QUOTES,STRICT_ALL_TABLES'");
                s.execute("SET time_zone = '+02:00'");
                for (String sql : List.of(
                        "SELECT @@sql_mode, @@session.time_zone",
                        "SHOW VARIABLES LIKE 'sql_mode'",
                        "SHOW SESSION VARIABLES WHERE Variable_name = 'time_zone'")) {
                    try (ResultSet rs = s.executeQuery(sql)) {
                        assertThat(rs.next()).as(sql).isTrue();
                        String text = rs.getString(1) + " " + rs.getString(2);
                        assertThat(text).as(sql).containsAnyOf("ANSI_QUOTES,STRICT_ALL_TABLES", "+02:00");
                    }
                }
                s.execute("USE information_schema");
                try (ResultSet rs = s.executeQuery("SELECT DATABASE()")) {
                    rs.next();
                    assertThat(rs.getString(1)).isEqualTo("information_schema");
                }
            }
        }
    }

    private static ToolRun cli(int port, String user, String password, String sql) throws Exception {
        Path cli = ExternalTool.MARIADB_CLI.require();
        return ToolRun.run(
                Duration.ofMinutes(2),
                List.of(
                        cli.toString(),
                        "--no-defaults",
                        "--protocol=TCP",
                        "--host=127.0.0.1",
                        "--port=" + port,
                        "--user=" + user,
                        "--password=" + password,
                        "--database=" + SCHEMA,
                        "--batch",
                        "--execute=" + sql));
    }

    @Test
    void theMariadbCliSeesTheLogicalSchema() throws Exception {
        String sql = "SHOW DATABASES; SHOW TABLES; DESCRIBE orders; SELECT DATABASE();"
                + " SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME";
        ToolRun viaRouter = cli(cluster.router.mysqlPort(), ShardedCluster.USER, ShardedCluster.PASSWORD, sql);
        ToolRun direct = cli(reference.port(), ShardedCluster.BACKEND_USER, ShardedCluster.BACKEND_PASSWORD, sql);
        assertThat(viaRouter.exitCode()).as(viaRouter.toString()).isZero();
        assertThat(viaRouter.stdout())
                .isEqualTo(direct.stdout())
                .contains("items")
                .contains("notes");
        ToolRun status = cli(cluster.router.mysqlPort(), ShardedCluster.USER, ShardedCluster.PASSWORD, "\\s");
        assertThat(status.exitCode()).as(status.toString()).isZero();
        assertThat(status.stdout()).containsPattern("Current database:\\s+" + SCHEMA);
    }
}
