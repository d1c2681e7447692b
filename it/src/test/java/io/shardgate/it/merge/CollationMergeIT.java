package io.shardgate.it.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18 class 3: multi-shard merges compare strings as the column's collation does. A table
 * hash-sharded on {@code id} over three MariaDB shards, with one column per collation MariaDB 11.4
 * ships that matters (general, unicode, unicode_520, uca1400, 0900, _bin, nopad, swedish, german2,
 * utf8mb3, latin1, ascii, binary) holding trap values ('ss'/'ß', case, accents, trailing spaces and
 * tabs, '', NULL, 'Å'/'Ä'/'Z' for swedish, 'ae'/'æ', emoji, long strings), is queried through the
 * router with ORDER BY, GROUP BY, DISTINCT, MIN/MAX, COUNT(DISTINCT), UNION, UNION ALL and a derived
 * table, and the same statement runs on one unsharded MariaDB holding the same rows. The answers
 * must be equal, or the router must refuse with ERROR 1235: never different.
 *
 * <p>Where MySQL returns any one of several strings equal under the collation (the representative of
 * a group, DISTINCT, MIN/MAX), those cells are compared by asking the oracle whether the two strings
 * are equal under the column's collation; every other cell byte for byte, rows in order (each query
 * has a total order, or the implicit order of GROUP BY over distinct groups).
 */
class CollationMergeIT {
    private static final String SCHEMA = "coll";
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final String BACKEND_USER = "shardgate";
    private static final String BACKEND_PASSWORD = "sg-secret";
    private static final int[] HOSTGROUPS = {10, 20, 30};

    /** Column collations: charset_collation, or "binary" for VARBINARY. */
    private static final List<String> COLLATIONS = List.of(
            "utf8mb4_general_ci",
            "utf8mb4_unicode_ci",
            "utf8mb4_unicode_520_ci",
            "utf8mb4_bin",
            "utf8mb4_nopad_bin",
            "utf8mb4_general_nopad_ci",
            "utf8mb4_unicode_nopad_ci",
            "utf8mb4_uca1400_ai_ci",
            "utf8mb4_uca1400_swedish_ai_ci",
            "utf8mb4_german2_ci",
            "utf8mb4_swedish_ci",
            "utf8mb4_0900_ai_ci",
            "utf8mb3_general_ci",
            "utf8mb3_unicode_ci",
            "latin1_swedish_ci",
            "latin1_german2_ci",
            "latin1_general_cs",
            "latin1_bin",
            "ascii_general_ci",
            "utf8mb4_uca1400_as_cs",
            "utf8mb4_0900_as_cs",
            "binary");
    /** Collations whose weight strings concatenate several levels: the router refuses to compare them. */
    private static final Set<String> MULTI_LEVEL = Set.of("utf8mb4_uca1400_as_cs", "utf8mb4_0900_as_cs");

    private static final List<String> VALUES = List.of(
            "ss",
            "ß",
            "SS",
            "a",
            "A",
            "á",
            "a ",
            "a\t",
            "",
            "Å",
            "Ä",
            "Ö",
            "Z",
            "z",
            "ae",
            "æ",
            "AE",
            "é",
            "E",
            "e ",
            "ü",
            "u",
            "y",
            "😀",
            "🙂",
            "o",
            " a",
            "a  ",
            "x".repeat(300) + "a",
            "X".repeat(300) + "A ",
            "x".repeat(300) + "b");

    private static final List<MariaDbServer> servers = new ArrayList<>();
    private static MariaDbServer oracle;
    private static Shardgate router;
    private static Connection viaRouter;
    private static Connection toOracle;

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        for (int i = 0; i < HOSTGROUPS.length + 1; i++) {
            servers.add(MariaDbServer.builder()
                    .database(SCHEMA)
                    .user(BACKEND_USER, BACKEND_PASSWORD)
                    .innodbBufferPoolSize("16M")
                    .start());
        }
        oracle = servers.get(HOSTGROUPS.length);
        List<String> yaml = new ArrayList<>();
        yaml.add("server: {bind: 127.0.0.1, port: 0, http_port: 0, node_id: 3, data_dir: \""
                + Files.createDirectories(dir.resolve("router")) + "\"}");
        yaml.add("users: [{name: " + USER + ", password: " + PASSWORD + "}]");
        yaml.add("hostgroups:");
        for (int i = 0; i < HOSTGROUPS.length; i++) {
            yaml.add("  - {id: " + HOSTGROUPS[i] + ", writer: \""
                    + servers.get(i).address() + "\", user: " + BACKEND_USER + ", password: " + BACKEND_PASSWORD + "}");
        }
        yaml.add("schemas:");
        yaml.add("  - name: " + SCHEMA);
        yaml.add("    default_hostgroup: 10");
        yaml.add("    tables:");
        yaml.add(
                "      - {name: cw, strategy: hash, column: id, buckets: 3, hostgroups: {10: \"0\", 20: \"1\", 30: \"2\"}}");
        for (MariaDbServer s : servers) {
            try (Connection c = Driver.MARIADB.connect(s.port(), SCHEMA, BACKEND_USER, BACKEND_PASSWORD);
                    Statement st = c.createStatement()) {
                st.execute(table());
            }
        }
        router = Shardgate.start(RouterConfig.parse(String.join("\n", yaml) + "\n"));
        viaRouter = Driver.MARIADB.connect(router.mysqlPort(), SCHEMA, USER, PASSWORD);
        toOracle = Driver.MARIADB.connect(oracle.port(), SCHEMA, BACKEND_USER, BACKEND_PASSWORD);
        load();
    }

    @AfterAll
    static void stop() throws Exception {
        for (Connection c : Arrays.asList(viaRouter, toOracle)) {
            if (c != null) {
                c.close();
            }
        }
        if (router != null) {
            router.close();
        }
        servers.forEach(MariaDbServer::close);
    }

    private static String column(int i) {
        return "c" + i;
    }

    private static String table() {
        StringBuilder sql = new StringBuilder("CREATE TABLE cw (id BIGINT PRIMARY KEY, g INT NOT NULL");
        for (int i = 0; i < COLLATIONS.size(); i++) {
            String collation = COLLATIONS.get(i);
            sql.append(", ").append(column(i));
            if (collation.equals("binary")) {
                sql.append(" VARBINARY(1300) NULL");
            } else {
                String charset = collation.substring(0, collation.indexOf('_'));
                sql.append(" VARCHAR(400) CHARACTER SET ")
                        .append(charset)
                        .append(" COLLATE ")
                        .append(collation)
                        .append(" NULL");
            }
        }
        return sql.append(") DEFAULT CHARSET=utf8mb4").toString();
    }

    /** Whether the column's character set holds the value (else the row has NULL there). */
    private static boolean holds(String collation, String value) {
        if (collation.startsWith("latin1")) {
            return StandardCharsets.ISO_8859_1.newEncoder().canEncode(value);
        }
        if (collation.startsWith("ascii")) {
            return StandardCharsets.US_ASCII.newEncoder().canEncode(value);
        }
        if (collation.startsWith("utf8mb3")) {
            return value.codePoints().allMatch(cp -> cp <= 0xFFFF);
        }
        return true;
    }

    /** Each value twice (ids 2i+1, 2i+2, so copies land on different shards), and one row of NULLs. */
    private static void load() throws SQLException {
        String marks = "?" + ", ?".repeat(COLLATIONS.size() + 1);
        StringBuilder names = new StringBuilder("id, g");
        for (int i = 0; i < COLLATIONS.size(); i++) {
            names.append(", ").append(column(i));
        }
        String insert = "INSERT INTO cw (" + names + ") VALUES (" + marks + ")";
        try (PreparedStatement r = viaRouter.prepareStatement(insert);
                PreparedStatement o = toOracle.prepareStatement(insert)) {
            long id = 0;
            List<String> rows = new ArrayList<>(VALUES);
            rows.addAll(VALUES);
            rows.add(null);
            for (String value : rows) {
                id++;
                for (PreparedStatement p : List.of(r, o)) {
                    p.setLong(1, id);
                    p.setInt(2, (int) (id % 4));
                    for (int i = 0; i < COLLATIONS.size(); i++) {
                        String collation = COLLATIONS.get(i);
                        if (value == null || !holds(collation, value)) {
                            p.setNull(3 + i, java.sql.Types.VARCHAR);
                        } else {
                            // a VARBINARY gets the UTF-8 bytes (a _binary literal is not routed by the planner)
                            p.setString(3 + i, value);
                        }
                    }
                    assertThat(p.executeUpdate()).isEqualTo(1);
                }
            }
        }
    }

    /** A statement over one column, {@code representatives} the result columns MySQL may pick a string for. */
    private record Query(String sql, Set<Integer> representatives) {}

    private static List<Query> queries(String c) {
        return List.of(
                new Query("SELECT id, " + c + " FROM cw ORDER BY " + c + ", id", Set.of()),
                new Query("SELECT id, " + c + " FROM cw ORDER BY " + c + " DESC, id DESC LIMIT 7", Set.of()),
                new Query("SELECT id FROM cw ORDER BY " + c + ", id LIMIT 3, 9", Set.of()),
                new Query("SELECT COUNT(*), MIN(id), MAX(id), COUNT(" + c + ") FROM cw GROUP BY " + c, Set.of()),
                new Query(
                        "SELECT " + c + ", COUNT(*), MIN(id) FROM cw GROUP BY " + c + " ORDER BY " + c + " DESC",
                        Set.of(0)),
                new Query("SELECT DISTINCT " + c + " FROM cw ORDER BY " + c, Set.of(0)),
                new Query("SELECT DISTINCT CONCAT(" + c + ", '!') AS x FROM cw ORDER BY x", Set.of(0)),
                new Query(
                        "SELECT DISTINCT IF(" + c + " IN ('a', 'ss', 'Z'), " + c + ", 'other') AS x FROM cw ORDER BY x",
                        Set.of(0)),
                new Query(
                        "SELECT MIN(" + c + "), MAX(" + c + "), COUNT(DISTINCT " + c + "), COUNT(" + c + ") FROM cw",
                        Set.of(0, 1)),
                new Query(
                        "SELECT g, MIN(" + c + "), MAX(" + c + "), COUNT(DISTINCT " + c
                                + ") FROM cw GROUP BY g ORDER BY g",
                        Set.of(1, 2)),
                new Query("SELECT COUNT(*) FROM cw GROUP BY " + c + " HAVING COUNT(*) > 2", Set.of()),
                new Query(
                        "SELECT " + c + " FROM cw WHERE id < 20 UNION SELECT " + c + " FROM cw WHERE id >= 20 ORDER BY "
                                + c,
                        Set.of(0)),
                new Query(
                        "SELECT id, " + c + " FROM cw WHERE g = 1 UNION ALL SELECT id, " + c
                                + " FROM cw WHERE g <> 1 ORDER BY " + c + ", id",
                        Set.of()),
                new Query(
                        "SELECT t." + c + ", COUNT(*) FROM (SELECT id, " + c + " FROM cw) t GROUP BY t." + c
                                + " ORDER BY t." + c,
                        Set.of(0)));
    }

    @Test
    void everyMergeOfStringsEqualsOneServerOrIsRefused() throws SQLException {
        Map<String, List<String>> refusals = new LinkedHashMap<>();
        List<String> differences = new ArrayList<>();
        int compared = 0;
        for (int i = 0; i < COLLATIONS.size(); i++) {
            String collation = COLLATIONS.get(i);
            for (Query q : queries(column(i))) {
                List<List<byte[]>> want = run(toOracle, q.sql());
                List<List<byte[]>> got;
                try {
                    got = run(viaRouter, q.sql());
                } catch (SQLException e) {
                    if (e.getErrorCode() != 1235) {
                        differences.add(
                                collation + ": " + q.sql() + " -> ERROR " + e.getErrorCode() + " " + e.getMessage());
                    } else {
                        refusals.computeIfAbsent(collation, k -> new ArrayList<>())
                                .add(q.sql() + " -> " + e.getMessage());
                    }
                    continue;
                }
                compared++;
                String difference = difference(collation, q, want, got);
                if (difference != null) {
                    differences.add(collation + ": " + q.sql() + " -> " + difference);
                }
            }
        }
        assertThat(differences).as("answers different from one MariaDB").isEmpty();
        for (String collation : COLLATIONS) {
            if (MULTI_LEVEL.contains(collation)) {
                assertThat(refusals.get(collation))
                        .as("a multi-level collation is refused where strings are compared")
                        .isNotEmpty()
                        .allMatch(r -> r.contains("several levels"));
            } else {
                assertThat(refusals.get(collation))
                        .as("refusals under " + collation)
                        .isNull();
            }
        }
        assertThat(compared).isGreaterThan(200);
    }

    @Test
    void aStringKeyWithoutWeightsIsRefusedNotGuessed() throws SQLException {
        // the columns of * are not known when planning: the shards cannot be asked for their weights
        String sql = "SELECT DISTINCT * FROM cw";
        assertThat(run(toOracle, sql)).isNotEmpty();
        try {
            run(viaRouter, sql);
            throw new AssertionError("answered instead of refusing: " + sql);
        } catch (SQLException e) {
            assertThat(e.getErrorCode()).isEqualTo(1235);
            assertThat(e.getMessage()).contains("without their collation weights");
        }
    }

    /** Why {@code got} is not {@code want}, or null when it is. */
    private static String difference(String collation, Query q, List<List<byte[]>> want, List<List<byte[]>> got)
            throws SQLException {
        if (want.size() != got.size()) {
            return "rows: want " + want.size() + ", got " + got.size() + "; want " + show(want) + " got " + show(got);
        }
        for (int r = 0; r < want.size(); r++) {
            for (int c = 0; c < want.get(r).size(); c++) {
                byte[] w = want.get(r).get(c);
                byte[] g = got.get(r).get(c);
                boolean same = q.representatives().contains(c) ? equalUnder(collation, w, g) : Arrays.equals(w, g);
                if (!same) {
                    return "row " + (r + 1) + " column " + (c + 1) + ": want " + show(w) + " got " + show(g) + "; want "
                            + show(want) + " got " + show(got);
                }
            }
        }
        return null;
    }

    /** Whether the oracle finds the two strings equal under the collation (both NULL counts). */
    private static boolean equalUnder(String collation, byte[] a, byte[] b) throws SQLException {
        if (a == null || b == null) {
            return a == b;
        }
        String cast = collation.equals("binary")
                ? "CAST(? AS BINARY)"
                : "CONVERT(CONVERT(? USING utf8mb4) USING " + collation.substring(0, collation.indexOf('_'))
                        + ") COLLATE " + collation;
        try (PreparedStatement p = toOracle.prepareStatement("SELECT " + cast + " = " + cast)) {
            p.setBytes(1, a);
            p.setBytes(2, b);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 1;
            }
        }
    }

    private static List<List<byte[]>> run(Connection c, String sql) throws SQLException {
        List<List<byte[]>> rows = new ArrayList<>();
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<byte[]> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    // strings as their bytes (exact), numbers as their text
                    String number = switch (rs.getMetaData().getColumnType(i)) {
                        case java.sql.Types.BIGINT, java.sql.Types.INTEGER, java.sql.Types.DECIMAL -> rs.getString(i);
                        default -> null;
                    };
                    row.add(number != null ? number.getBytes(StandardCharsets.US_ASCII) : rs.getBytes(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    private static String show(byte[] v) {
        return v == null
                ? "NULL"
                : "'" + new String(v, StandardCharsets.UTF_8) + "'/"
                        + HexFormat.of().formatHex(v);
    }

    private static String show(List<List<byte[]>> rows) {
        List<String> out = new ArrayList<>();
        for (List<byte[]> row : rows) {
            out.add(row.stream().map(CollationMergeIT::show).toList().toString());
        }
        return out.size() > 40 ? out.subList(0, 40) + "..." : out.toString();
    }
}
