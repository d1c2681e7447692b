package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Protocol features beyond one statement, one result: server-side cursors (COM_STMT_FETCH),
 * multi-statements and stored procedures (several results per command), LOAD DATA LOCAL INFILE
 * (the client uploads a file mid-command) and COM_PING. Each runs through the router and directly
 * with the same driver options; what the client observes must be identical.
 */
@ExtendWith(ProxyClusterExtension.class)
class ProtocolFeaturesIT {
    private static ProxyCluster cluster;

    @BeforeAll
    static void createObjects(ProxyCluster shared) throws SQLException {
        cluster = shared;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS pf_items");
            s.execute("CREATE TABLE pf_items (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(8,2))");
            StringBuilder insert = new StringBuilder("INSERT INTO pf_items VALUES ");
            for (int i = 1; i <= 250; i++) {
                insert.append(i > 1 ? "," : "")
                        .append("(")
                        .append(i)
                        .append(",'item ")
                        .append(i)
                        .append("',")
                        .append(i % 7 == 0 ? "NULL" : i + ".25")
                        .append(")");
            }
            s.execute(insert.toString());
            s.execute("DROP PROCEDURE IF EXISTS pf_two_results");
            s.execute("CREATE PROCEDURE pf_two_results(IN lim INT) BEGIN"
                    + " SELECT id, name FROM pf_items WHERE id <= lim ORDER BY id;"
                    + " SELECT COUNT(*) AS n, SUM(price) AS total FROM pf_items; END");
            s.execute("DROP TABLE IF EXISTS pf_upload");
            s.execute("CREATE TABLE pf_upload (id INT PRIMARY KEY, label VARCHAR(40))");
        }
    }

    private static Connection connect(boolean proxied, Driver driver, Map<String, String> extra) throws SQLException {
        Map<String, String> options = new HashMap<>(Mode.SERVER_PREPARED.properties());
        options.put("connectTimeout", "30000");
        options.put("socketTimeout", "60000");
        options.putAll(extra);
        int port = proxied ? cluster.routerPort() : cluster.backend().port();
        String user = proxied ? ProxyCluster.APP_USER : ProxyCluster.BACKEND_USER;
        String password = proxied ? ProxyCluster.APP_PASSWORD : ProxyCluster.BACKEND_PASSWORD;
        return driver.connect(port, ProxyCluster.SCHEMA, user, password, options);
    }

    /** Rows of every result of a statement, as text, in order; update counts as "#n". */
    private static List<String> allResults(Statement s, boolean hasResult) throws SQLException {
        List<String> out = new ArrayList<>();
        boolean isResult = hasResult;
        while (true) {
            if (isResult) {
                try (ResultSet rs = s.getResultSet()) {
                    out.addAll(rows(rs));
                }
                out.add("--");
            } else {
                int count = s.getUpdateCount();
                if (count == -1) {
                    return out;
                }
                out.add("#" + count);
            }
            isResult = s.getMoreResults();
        }
    }

    private static List<String> rows(ResultSet rs) throws SQLException {
        List<String> rows = new ArrayList<>();
        int columns = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            StringBuilder row = new StringBuilder();
            for (int i = 1; i <= columns; i++) {
                row.append(i > 1 ? "|" : "").append(rs.getString(i));
            }
            rows.add(row.toString());
        }
        return rows;
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void cursorFetchReturnsEveryRowInBatches(Driver driver) throws SQLException {
        Map<String, String> cursor = Map.of("useCursorFetch", "true", "defaultFetchSize", "7");
        List<List<String>> seen = new ArrayList<>();
        for (boolean proxied : new boolean[] {true, false}) {
            try (Connection c = connect(proxied, driver, cursor);
                    PreparedStatement ps =
                            c.prepareStatement("SELECT id, name, price FROM pf_items WHERE id > ? ORDER BY id")) {
                ps.setFetchSize(7);
                ps.setInt(1, 3);
                try (ResultSet rs = ps.executeQuery()) {
                    seen.add(rows(rs));
                }
                // the session is usable after the cursor is exhausted
                try (ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM pf_items")) {
                    rs.next();
                    seen.add(List.of(rs.getString(1)));
                }
            }
        }
        assertThat(seen.get(0)).hasSize(247).startsWith("4|item 4|4.25");
        assertThat(seen.subList(0, 2)).isEqualTo(seen.subList(2, 4));
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void multiStatementsReturnEveryResult(Driver driver) throws SQLException {
        Map<String, String> multi = Map.of("allowMultiQueries", "true");
        String sql =
                "SELECT id, name FROM pf_items WHERE id < 4 ORDER BY id; UPDATE pf_items SET name = name WHERE id < 10;"
                        + " SELECT 'x' AS a, NULL AS b; SELECT id FROM pf_items WHERE id < 0";
        List<List<String>> seen = new ArrayList<>();
        for (boolean proxied : new boolean[] {true, false}) {
            try (Connection c = connect(proxied, driver, multi);
                    Statement s = c.createStatement()) {
                seen.add(allResults(s, s.execute(sql)));
                seen.add(allResults(s, s.execute("SELECT 1")));
            }
        }
        assertThat(seen.get(0)).containsExactly("1|item 1", "2|item 2", "3|item 3", "--", "#9", "x|null", "--", "--");
        assertThat(seen.subList(0, 2)).isEqualTo(seen.subList(2, 4));
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void storedProcedureReturnsBothResultSets(Driver driver) throws SQLException {
        List<List<String>> seen = new ArrayList<>();
        for (boolean proxied : new boolean[] {true, false}) {
            try (Connection c = connect(proxied, driver, Map.of());
                    CallableStatement call = c.prepareCall("{CALL pf_two_results(?)}")) {
                call.setInt(1, 2);
                seen.add(allResults(call, call.execute()));
                try (ResultSet rs = c.createStatement().executeQuery("SELECT 42")) {
                    rs.next();
                    seen.add(List.of(rs.getString(1)));
                }
            }
        }
        assertThat(seen.get(0)).startsWith("1|item 1", "2|item 2", "--");
        assertThat(seen.subList(0, 2)).isEqualTo(seen.subList(2, 4));
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void loadDataLocalInfileUploadsThroughTheRouter(Driver driver, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("upload.tsv");
        StringBuilder content = new StringBuilder();
        for (int i = 1; i <= 5000; i++) {
            content.append(i).append('\t').append("label ").append(i).append('\n');
        }
        Files.writeString(file, content, StandardCharsets.UTF_8);
        Map<String, String> local = Map.of("allowLoadLocalInfile", "true", "allowLocalInfile", "true");
        try (Connection c = connect(true, driver, local);
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM pf_upload");
            int loaded = s.executeUpdate("LOAD DATA LOCAL INFILE '"
                    + file.toString().replace("\\", "/") + "' INTO TABLE pf_upload (id, label)");
            assertThat(loaded).isEqualTo(5000);
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(id), MAX(label) FROM pf_upload")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(5000);
                assertThat(rs.getLong(2)).isEqualTo(5000L * 5001 / 2);
                assertThat(rs.getString(3)).isEqualTo("label 999");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void pingAndValidityChecksAnswer(Driver driver) throws SQLException {
        try (Connection c = connect(true, driver, Map.of())) {
            for (int i = 0; i < 5; i++) {
                assertThat(c.isValid(5)).isTrue();
            }
            try (ResultSet rs = c.createStatement().executeQuery("/* ping */ SELECT 1")) {
                assertThat(rs.next()).isTrue();
            }
        }
    }
}
