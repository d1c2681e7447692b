package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The differential corpus through the router: the same rows in one unsharded reference MariaDB
 * and in three shards behind Shardgate (hash, range, table, broadcast and unlisted tables, a binding
 * group), and several hundred queries ({@link DifferentialCorpus}: hand-written plus generated from
 * a seed) run on both, as text and as server-side prepared statements, with MySQL Connector/J and
 * MariaDB Connector/J. Results must be equal (in order when the query's ORDER BY fixes it, as
 * multisets otherwise) and so must the column labels and types. Values of a DISTINCT or GROUP BY
 * query compare under the column's collation (utf8mb4_general_ci: case and accents ignored): MySQL
 * itself returns whichever of {@code 'Oslo'} and {@code 'oslo'} its scan met first for their group. A query the router refuses with
 * ERR 1235 counts as a mismatch unless it is in {@link #EXPECTED_REFUSALS}. Prints the corpus size
 * and every mismatch.
 */
class DifferentialCorpusIT {
    private static final long SEED = 20_240_501L;
    private static final int GENERATED = 260;

    /**
     * Queries the router may refuse with ERR 1235 (by their SQL with placeholders), each with the
     * part of the refusal's message that says why (a refusal for another reason is a mismatch); an
     * answer to one of them is still compared.
     */
    private static final Map<String, String> EXPECTED_REFUSALS = Map.ofEntries(
            Map.entry(
                    "SELECT SUM(amount) / COUNT(*) * 100 FROM orders",
                    "computes a division whose quotient is used in further arithmetic over aggregates"),
            Map.entry("SELECT AVG(score) + 1 FROM customers", "computes AVG used in further arithmetic"),
            Map.entry(
                    "SELECT COUNT(*) FROM (SELECT status FROM orders GROUP BY status) t",
                    "derived table or table expression in FROM over sharded or broadcast tables is not supported yet"),
            Map.entry(
                    "SELECT * FROM (SELECT id FROM customers ORDER BY id LIMIT ?) t",
                    "subquery with ORDER_BY over sharded or broadcast tables is not supported yet"),
            Map.entry(
                    "SELECT id FROM orders UNION ALL SELECT code FROM countries",
                    "UNION over sharded tables: SELECT 2 of the UNION reads no sharded table"),
            Map.entry(
                    "SELECT status FROM orders GROUP BY status UNION SELECT name FROM customers",
                    "UNION over sharded tables: SELECT 1 of the UNION aggregates, DISTINCTs or LIMITs across shards"),
            Map.entry("SELECT BIT_OR(score) FROM customers", "aggregate BIT_OR() on several shards"),
            Map.entry(
                    "SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM customers",
                    "window function ROW_NUMBER() OVER (...) on several shards"),
            Map.entry(
                    "SELECT c.code, o.id FROM countries c LEFT JOIN orders o ON o.country = c.code",
                    "LEFT JOIN that keeps every row of a table held whole by each shard"),
            Map.entry("SELECT id FROM customers WHERE created < NOW()", "NOW() on several shards"));

    @TempDir
    static Path dataDir;

    private static ShardedCluster cluster;
    private static MariaDbServer reference;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShardedCluster(
                dataDir, DifferentialCorpus.SCHEMA, 3, DifferentialCorpus.TABLES, DifferentialCorpus.EXTRA);
        reference = MariaDbServer.builder()
                .database(DifferentialCorpus.SCHEMA)
                .user(ShardedCluster.BACKEND_USER, ShardedCluster.BACKEND_PASSWORD)
                .innodbBufferPoolSize("32M")
                .start();
        try (Connection viaRouter = cluster.proxied(Driver.MARIADB);
                Connection direct = reference(Driver.MARIADB);
                Statement r = viaRouter.createStatement();
                Statement d = direct.createStatement()) {
            for (String ddl : DifferentialCorpus.DDL) {
                r.execute(ddl); // DDL through the router: every shard holding the table gets it
                d.execute(ddl);
            }
            for (String insert : DifferentialCorpus.data(SEED)) {
                assertThat(r.executeUpdate(insert)).as(insert).isEqualTo(d.executeUpdate(insert));
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

    private static Connection reference(Driver driver) throws SQLException {
        return driver.connect(
                reference.port(),
                DifferentialCorpus.SCHEMA,
                ShardedCluster.BACKEND_USER,
                ShardedCluster.BACKEND_PASSWORD,
                Map.of("useServerPrepStmts", "true"));
    }

    /** Whether the query's rows stand for groups of values equal under the collation. */
    private static boolean grouped(DifferentialCorpus.Query query) {
        return query.sql().contains("DISTINCT ")
                || query.sql().contains("GROUP BY ")
                || query.sql().matches(".* UNION (?!ALL ).*"); // UNION's distinct rows, as DISTINCT's
    }

    /** A result: column labels and types, then rows as text; or the error. */
    private record Answer(List<String> columns, List<List<String>> rows, SQLException error) {
        /** Values as utf8mb4_general_ci compares them: case and accents folded. */
        Answer folded() {
            List<List<String>> out = new ArrayList<>();
            for (List<String> row : rows) {
                out.add(row.stream()
                        .map(v -> v == null
                                ? null
                                : Normalizer.normalize(v, Normalizer.Form.NFD)
                                        .replaceAll("\\p{M}", "")
                                        .toLowerCase(Locale.ROOT))
                        .toList());
            }
            return new Answer(columns, out, error);
        }

        Answer unordered() {
            List<List<String>> sorted = new ArrayList<>(rows);
            sorted.sort(Comparator.comparing(Object::toString));
            return new Answer(columns, sorted, error);
        }

        @Override
        public String toString() {
            return error != null
                    ? "ERROR " + error.getErrorCode() + " " + error.getMessage()
                    : columns + " " + rows.size() + " rows " + (rows.size() > 12 ? rows.subList(0, 12) + "..." : rows);
        }
    }

    private static Answer run(Connection c, DifferentialCorpus.Query query, boolean prepared) {
        try {
            if (prepared) {
                try (PreparedStatement s = c.prepareStatement(query.sql())) {
                    for (int i = 0; i < query.params().size(); i++) {
                        Object v = query.params().get(i);
                        if (v instanceof Integer n) {
                            s.setLong(i + 1, n);
                        } else if (v instanceof BigDecimal d) {
                            s.setBigDecimal(i + 1, d);
                        } else {
                            s.setString(i + 1, (String) v);
                        }
                    }
                    try (ResultSet rs = s.executeQuery()) {
                        return answer(rs);
                    }
                }
            }
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(query.literal())) {
                return answer(rs);
            }
        } catch (SQLException e) {
            return new Answer(List.of(), List.of(), e);
        }
    }

    private static Answer answer(ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        List<String> columns = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            columns.add(md.getColumnLabel(i) + ":" + md.getColumnTypeName(i));
        }
        List<List<String>> rows = new ArrayList<>();
        while (rs.next()) {
            List<String> row = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                row.add(rs.getString(i));
            }
            rows.add(row);
        }
        return new Answer(columns, rows, null);
    }

    @Test
    void everyQueryAnswersAsOneServerWould() throws SQLException {
        List<DifferentialCorpus.Query> corpus = new ArrayList<>(DifferentialCorpus.handWritten());
        int handWritten = corpus.size();
        corpus.addAll(DifferentialCorpus.generated(SEED, GENERATED));
        List<String> mismatches = new ArrayList<>();
        int executions = 0;
        int refused = 0;
        for (Driver driver : Driver.values()) {
            for (boolean prepared : new boolean[] {false, true}) {
                try (Connection viaRouter =
                                cluster.proxied(driver, Map.of("useServerPrepStmts", Boolean.toString(prepared)));
                        Connection direct = reference(driver)) {
                    for (DifferentialCorpus.Query query : corpus) {
                        executions++;
                        Answer expected = run(direct, query, prepared);
                        Answer actual = run(viaRouter, query, prepared);
                        assertThat((Object) expected.error())
                                .as("the reference fails %s", query.literal())
                                .isNull();
                        if (actual.error() != null
                                && actual.error().getErrorCode() == 1235
                                && EXPECTED_REFUSALS.containsKey(query.sql())) {
                            if (!actual.error().getMessage().contains(EXPECTED_REFUSALS.get(query.sql()))) {
                                mismatches.add(driver + (prepared ? " prepared: " : " text: ") + query.literal()
                                        + "\n    refused for another reason than expected: " + actual);
                            }
                            refused++;
                            continue;
                        }
                        Answer want = grouped(query) ? expected.folded() : expected;
                        Answer got = grouped(query) ? actual.folded() : actual;
                        boolean same = query.ordered()
                                ? got.equals(want)
                                : got.unordered().equals(want.unordered());
                        if (!same) {
                            mismatches.add(driver + (prepared ? " prepared: " : " text: ") + query.literal()
                                    + "\n    expected " + expected + "\n    actual   " + actual);
                        }
                    }
                }
            }
        }
        System.out.println("differential corpus: " + corpus.size() + " queries (" + handWritten + " hand-written, "
                + (corpus.size() - handWritten) + " generated from seed " + SEED + "), " + executions
                + " executions (2 drivers x text/prepared), " + refused + " expected refusals, "
                + mismatches.size() + " mismatches");
        mismatches.forEach(m -> System.out.println("MISMATCH " + m));
        assertThat(mismatches.size()).as("mismatches (printed above)").isZero();
        assertThat(Set.copyOf(corpus).size()).as("distinct queries").isGreaterThan(200);
    }
}
