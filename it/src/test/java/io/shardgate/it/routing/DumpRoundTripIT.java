package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 16 item 4: {@code mariadb-dump} of a schema with sharded tables through the router, and the
 * dump loaded back with the {@code mariadb} CLI through the router, round-trips: every table holds
 * the same rows afterwards and each row is on the same shard (the shard its key maps to). Three
 * real MariaDB shards; a hash table, a second hash table in its binding group, a broadcast table
 * and an unlisted table, with NULLs, quotes, backslashes, binary and 4-byte UTF-8. Skipped (and
 * listed) without the mariadb-client tools; CI installs them.
 */
class DumpRoundTripIT {
    private static final String SCHEMA = "dumpdb";
    private static final List<String> TABLES = List.of("customers", "orders", "countries", "notes");

    @TempDir
    static Path dataDir;

    private static ShardedCluster cluster;
    private static Path dump;
    private static Path cli;
    /** Per table, per hostgroup: the rows each shard held before the dump. */
    private static Map<String, Map<Integer, List<String>>> original;

    @BeforeAll
    static void start() throws Exception {
        dump = ExternalTool.MARIADB_DUMP.require();
        cli = ExternalTool.MARIADB_CLI.require();
        cluster = new ShardedCluster(
                dataDir,
                SCHEMA,
                3,
                List.of(
                        "{name: customers, strategy: hash, column: id, buckets: 12, hostgroups: {10: \"0-3\", 20:"
                                + " \"4-7\", 30: \"8-11\"}}",
                        "{name: orders, strategy: hash, column: customer_id, buckets: 12, hostgroups: {10: \"0-3\","
                                + " 20: \"4-7\", 30: \"8-11\"}}",
                        "{name: countries, strategy: broadcast}"),
                List.of("binding_groups: [[customers, orders]]"));
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR(60) CHARACTER SET utf8mb4,"
                    + " note TEXT, avatar VARBINARY(16), born DATE) DEFAULT CHARSET=utf8mb4");
            s.execute("CREATE TABLE orders (id BIGINT, customer_id BIGINT NOT NULL, total DECIMAL(10,2),"
                    + " status ENUM('new','paid') DEFAULT 'new', PRIMARY KEY (customer_id, id))");
            s.execute("CREATE TABLE countries (code CHAR(2) PRIMARY KEY, name VARCHAR(40)) DEFAULT CHARSET=utf8mb4");
            s.execute("CREATE TABLE notes (id INT AUTO_INCREMENT PRIMARY KEY, body TEXT) DEFAULT CHARSET=utf8mb4");
            for (int id = 1; id <= 30; id++) {
                s.execute("INSERT INTO customers (id, name, note, avatar, born) VALUES (" + id + ", "
                        + (id % 7 == 0 ? "NULL" : "'Zoë O''Brien \\\\ \"q\" 😀 #" + id + "'") + ", "
                        + (id % 5 == 0 ? "NULL" : "'line1\\nline2\\ttab;--'") + ", "
                        + (id % 3 == 0 ? "NULL" : "0x00FF27225C0A" + String.format("%02X", id)) + ", "
                        + (id % 4 == 0 ? "NULL" : "'1990-01-" + String.format("%02d", id % 28 + 1) + "'") + ")");
                s.execute("INSERT INTO orders (id, customer_id, total, status) VALUES (" + (100 + id) + ", " + id
                        + ", " + (id * 3) + ".25, " + (id % 2 == 0 ? "'paid'" : "DEFAULT") + "), (" + (200 + id)
                        + ", " + id + ", NULL, 'new')");
            }
            s.execute("INSERT INTO countries VALUES ('DE', 'Deutschland'), ('FR', 'Fran\\'ce'), ('JP', '日本')");
            s.execute("INSERT INTO notes (body) VALUES ('first; not a statement end'), (NULL), ('😀')");
        }
        original = placement();
        for (String table : List.of("customers", "orders")) {
            assertThat(original.get(table))
                    .as("%s is spread over every shard", table)
                    .hasSize(3);
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * Dumps through the router with {@code options}, recreates the schema, loads the dump back.
     * {@code --hex-blob} writes binary values as hex literals: raw bytes that are not UTF-8 cannot
     * pass a statement the router splits ({@link #rawBinaryInASplitInsertIsRefusedNotAltered}).
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "--hex-blob",
                "--hex-blob --single-transaction",
                "--hex-blob --skip-lock-tables --complete-insert",
                "--hex-blob --single-transaction --skip-extended-insert"
            })
    void dumpAndReloadRoundTrips(String options) throws Exception {
        Path file = dataDir.resolve("dump-" + options.replace(' ', '_') + ".sql");
        ToolRun dumped = dump(options, file);
        assertThat(dumped.exitCode()).as("%s", dumped).isZero();
        assertThat(Files.readString(file, StandardCharsets.ISO_8859_1))
                .contains("INSERT INTO `customers`")
                .contains("CREATE TABLE `orders`");

        ToolRun recreated = mariadb(null, "DROP DATABASE " + SCHEMA + "; CREATE DATABASE " + SCHEMA);
        assertThat(recreated.exitCode()).as("%s", recreated).isZero();
        for (int i = 0; i < 3; i++) {
            try (Connection c = cluster.direct(ShardedCluster.hostgroup(i));
                    ResultSet rs = c.createStatement().executeQuery("SHOW TABLES")) {
                assertThat(rs.next())
                        .as("shard %d is empty after DROP DATABASE", i)
                        .isFalse();
            }
        }

        ToolRun loaded = load(file);
        assertThat(loaded.exitCode()).as("%s", loaded).isZero();
        assertThat(placement()).isEqualTo(original);
    }

    /** {@code --no-create-info}: only the rows; loaded into the emptied tables. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "--hex-blob --no-create-info",
                "--hex-blob --no-create-info --single-transaction --complete-insert"
            })
    void dataOnlyDumpReloadsIntoEmptiedTables(String options) throws Exception {
        Path file = dataDir.resolve("data-" + options.replace(' ', '_') + ".sql");
        ToolRun dumped = dump(options, file);
        assertThat(dumped.exitCode()).as("%s", dumped).isZero();
        assertThat(Files.readString(file, StandardCharsets.ISO_8859_1)).doesNotContain("CREATE TABLE");

        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            for (String table : TABLES) {
                s.execute("DELETE FROM " + table);
            }
        }
        assertThat(placement().values()).allMatch(Map::isEmpty);

        ToolRun loaded = load(file);
        assertThat(loaded.exitCode()).as("%s", loaded).isZero();
        assertThat(placement()).isEqualTo(original);
    }

    /**
     * Without {@code --hex-blob} (the default) the dump holds binary values as raw bytes in string
     * literals, not valid UTF-8 (0xFF): the router splits each INSERT by shard and writes those bytes
     * back exactly as they came, so the load restores every row, byte for byte, where it was.
     */
    @Test
    void rawBinaryInASplitInsertRoundTripsByteForByte() throws Exception {
        Path file = dataDir.resolve("raw-binary.sql");
        ToolRun dumped = dump("--no-create-info", file, "customers");
        assertThat(dumped.exitCode()).as("%s", dumped).isZero();
        assertThat(Files.readAllBytes(file))
                .as("the dump holds a raw 0xFF byte (not hex)")
                .contains((byte) 0xFF);
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM customers");
        }
        assertThat(placement().get("customers")).isEmpty();

        ToolRun loaded = load(file);

        assertThat(loaded.exitCode()).as("%s", loaded).isZero();
        assertThat(placement()).isEqualTo(original);
    }

    private static ToolRun dump(String options, Path file) throws Exception {
        return dump(options, file, SCHEMA);
    }

    private static ToolRun dump(String options, Path file, String... names) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                dump.toString(),
                "--no-defaults",
                "--protocol=TCP",
                "--host=127.0.0.1",
                "--port=" + cluster.router.mysqlPort(),
                "--user=" + ShardedCluster.USER,
                "--password=" + ShardedCluster.PASSWORD,
                "--result-file=" + file));
        if (!options.isEmpty()) {
            command.addAll(List.of(options.split(" ")));
        }
        if (names.length > 1 || !names[0].equals(SCHEMA)) {
            command.add(SCHEMA);
        }
        command.addAll(List.of(names));
        return ToolRun.run(Duration.ofMinutes(2), command);
    }

    /** Feeds {@code file} to the mariadb CLI on its standard input, as {@code mariadb db < dump.sql} does. */
    private static ToolRun load(Path file) throws Exception {
        return mariadb(SCHEMA, null, file);
    }

    private static ToolRun mariadb(String database, String sql) throws Exception {
        return mariadb(database, sql, Path.of("/dev/null"));
    }

    private static ToolRun mariadb(String database, String sql, Path input) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                cli.toString(),
                "--no-defaults",
                "--protocol=TCP",
                "--host=127.0.0.1",
                "--port=" + cluster.router.mysqlPort(),
                "--user=" + ShardedCluster.USER,
                "--password=" + ShardedCluster.PASSWORD,
                "--batch"));
        if (database != null) {
            command.add("--database=" + database);
        }
        if (sql != null) {
            command.add("--execute=" + sql);
        }
        return ToolRun.run(Duration.ofMinutes(2), command, input);
    }

    /** Per table, per hostgroup holding rows of it: the rows, each cell hex-encoded, sorted. */
    private static Map<String, Map<Integer, List<String>>> placement() throws SQLException {
        Map<String, Map<Integer, List<String>>> out = new TreeMap<>();
        for (String table : TABLES) {
            Map<Integer, List<String>> byShard = new TreeMap<>();
            for (int i = 0; i < 3; i++) {
                int hostgroup = ShardedCluster.hostgroup(i);
                List<String> rows = rows(hostgroup, table);
                if (!rows.isEmpty()) {
                    byShard.put(hostgroup, rows);
                }
            }
            out.put(table, byShard);
        }
        return out;
    }

    private static List<String> rows(int hostgroup, String table) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = cluster.direct(hostgroup);
                ResultSet exists = c.createStatement()
                        .executeQuery("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = '" + SCHEMA
                                + "' AND TABLE_NAME = '" + table + "'")) {
            exists.next();
            if (exists.getInt(1) == 0) {
                return rows; // an unlisted table lives on the default hostgroup only
            }
        }
        try (Connection c = cluster.direct(hostgroup);
                ResultSet rs = c.createStatement().executeQuery("SELECT * FROM " + table)) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int col = 1; col <= meta.getColumnCount(); col++) {
                    int type = meta.getColumnType(col);
                    boolean binary = type == Types.BINARY || type == Types.VARBINARY || type == Types.LONGVARBINARY;
                    String value = binary
                            ? (rs.getBytes(col) == null ? null : HexFormat.of().formatHex(rs.getBytes(col)))
                            : rs.getString(col);
                    row.append(meta.getColumnName(col))
                            .append('=')
                            .append(value == null ? "NULL" : "'" + value + "'")
                            .append(' ');
                }
                rows.add(row.toString());
            }
        }
        rows.sort(null);
        return rows;
    }
}
