package io.shardgate.it.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.sharding.rule.KeyedStrategy;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bin/shardgate demo} shards: started with its command-line options (free ports), it puts
 * rows on every shard exactly where its rules say, keeps a copy of the broadcast table on each, and
 * every {@code mariadb} command its banner prints runs through the router (or the admin endpoint,
 * or the shard it names) as printed, with the answers the banner promises.
 */
class DemoClusterIT {
    /** {@code mariadb -hHOST -PPORT -uUSER -pPASSWORD [DB] -e 'SQL'} (or "SQL"), as the banner prints it. */
    private static final Pattern COMMAND =
            Pattern.compile("^\\s*mariadb -h(\\S+) -P(\\d+) -u(\\S+) -p(\\S+)(?: (\\w+))? -e (['\"])(.*)\\6$");

    @TempDir
    static Path dataDir;

    private static RunningDemo demo;
    private static String banner;
    private static RuleSnapshot rules;

    @BeforeAll
    static void start() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        DemoCluster command = new DemoCluster(out);
        new CommandLine(command)
                .parseArgs("--port", "0", "--admin-port", "0", "--http-port", "0", "--data-dir", dataDir.toString());
        demo = command.start();
        out.print(DemoBanner.render(demo, DemoCluster.SCHEMA));
        banner = printed.toString(StandardCharsets.UTF_8);
        rules = demo.config().rules(1);
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
    }

    @Test
    void startsThreeShardsAndPrintsEachWithItsRows() {
        assertThat(demo.shards()).hasSize(3);
        assertThat(banner).contains("3 MariaDB shards behind one router");
        for (int i = 0; i < 3; i++) {
            assertThat(banner)
                    .containsPattern("hostgroup " + DemoData.hostgroup(i) + "  MariaDB "
                            + Pattern.quote(demo.shards().get(i).address()) + "  customers \\d+, orders \\d+");
        }
        assertThat(banner)
                .contains("-P" + demo.router().adminPort() + " -uadmin -padmin -e 'SELECT * FROM runtime_servers'");
    }

    @Test
    void everyShardHoldsRowsAndEachRowLivesWhereTheRulesSay() throws SQLException {
        int customers = 0;
        for (int i = 0; i < demo.shards().size(); i++) {
            int hostgroup = DemoData.hostgroup(i);
            // (the banner's INSERT, which other tests run, adds Alan Turing)
            List<Long> ids = column(demo.shards().get(i), "SELECT id FROM customers WHERE name <> 'Alan Turing'");
            assertThat(ids).as("customers on hostgroup %d", hostgroup).isNotEmpty();
            for (long id : ids) {
                assertThat(hostgroupOf("customers", id)).as("customer %d", id).isEqualTo(hostgroup);
            }
            customers += ids.size();
            for (String table : List.of("orders", "order_items")) {
                List<Long> owners = column(demo.shards().get(i), "SELECT customer_id FROM " + table);
                assertThat(owners).as("%s on hostgroup %d", table, hostgroup).isNotEmpty();
                // binding group: an order and its items sit beside their customer
                assertThat(owners).allSatisfy(c -> assertThat(ids).contains(c));
            }
            assertThat(column(demo.shards().get(i), "SELECT COUNT(*) FROM countries"))
                    .as("the broadcast table is copied to hostgroup %d", hostgroup)
                    .containsExactly((long) DemoData.COUNTRIES.length);
        }
        assertThat(customers).isEqualTo(DemoData.LISTED_CUSTOMERS + 2);
    }

    @Test
    void customersWithoutAnIdGotSnowflakeIds() throws SQLException {
        List<Long> generated = new ArrayList<>();
        for (MariaDbServer shard : demo.shards()) {
            generated.addAll(
                    column(shard, "SELECT id FROM customers WHERE name IN ('Anders Hejlsberg', 'Sophie Wilson')"));
        }
        // snowflake ids: milliseconds since 2024 above 22 bits of node and sequence
        assertThat(generated).hasSize(2).allSatisfy(id -> assertThat(id).isGreaterThan(1L << 40));
    }

    @Test
    void theOneShardLookupRunsOnTheCustomersShardOnly() throws SQLException {
        List<List<String>> viaRouter = run(command(DemoBanner.LOOKUP)).get(0);
        int home = hostgroupOf("customers", DemoBanner.LOOKUP_CUSTOMER);
        List<List<String>> direct = rows(
                shardOf(home),
                "SELECT id, status, total FROM orders WHERE customer_id = " + DemoBanner.LOOKUP_CUSTOMER);
        assertThat(viaRouter).isNotEmpty().containsExactlyInAnyOrderElementsOf(direct);

        assertThat(targets(
                        run(command("EXPLAIN SHARDGATE " + DemoBanner.LOOKUP)).get(0)))
                .containsExactly(home);
    }

    @Test
    void theScatteredGroupByAddsUpEveryShard() throws SQLException {
        Map<String, BigDecimal> expected = new TreeMap<>();
        for (MariaDbServer shard : demo.shards()) {
            for (List<String> row : rows(shard, "SELECT status, total FROM orders")) {
                expected.merge(row.get(0), new BigDecimal(row.get(1)), BigDecimal::add);
            }
        }
        Map<String, BigDecimal> merged = new TreeMap<>();
        for (List<String> row : run(command(DemoBanner.SCATTER_GROUP_BY)).get(0)) {
            merged.put(row.get(0), new BigDecimal(row.get(2)));
        }
        assertThat(merged).isEqualTo(expected);

        assertThat(targets(run(command("EXPLAIN SHARDGATE " + DemoBanner.SCATTER_GROUP_BY))
                        .get(0)))
                .containsExactlyInAnyOrder(10, 20, 30);
    }

    @Test
    void everyPrintedCommandRuns() throws SQLException {
        List<String> commands =
                banner.lines().filter(l -> COMMAND.matcher(l).matches()).toList();
        assertThat(commands).hasSizeGreaterThanOrEqualTo(9);
        for (String command : commands) {
            assertThat(run(command))
                    .as(command)
                    .allSatisfy(result -> assertThat(result).isNotNull());
        }
    }

    @Test
    void theSnowflakeInsertLandsOnTheShardItsIdNames() throws SQLException {
        List<List<List<String>>> results = run(command(DemoBanner.SIGN_UP));
        long id = Long.parseLong(results.get(1).get(0).get(0));
        assertThat(id).isGreaterThan(1L << 40);
        int home = hostgroupOf("customers", id);
        assertThat(rows(shardOf(home), "SELECT name FROM customers WHERE id = " + id))
                .containsExactly(List.of("Alan Turing"));
    }

    @Test
    void adminRuntimeServersListsEveryShardOnline() throws SQLException {
        String line = banner.lines()
                .filter(l -> l.contains("SELECT * FROM runtime_servers"))
                .findFirst()
                .orElseThrow();
        List<List<String>> servers = run(line).get(0);
        assertThat(servers).hasSize(3);
        String all = flatten(servers);
        for (MariaDbServer shard : demo.shards()) {
            assertThat(all).contains(shard.address());
        }
        assertThat(all).contains("ONLINE");
    }

    @Test
    void thePrintedHttpApiAnswers() throws Exception {
        Matcher curl = Pattern.compile("curl -s (\\S+)/api/config").matcher(banner);
        assertThat(curl.find()).isTrue();
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://" + curl.group(1) + "/api/config"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("order_items").contains("snowflake");
    }

    /** The banner's command line whose SQL is {@code sql}. */
    private static String command(String sql) {
        return banner.lines()
                .filter(l -> l.endsWith(" -e '" + sql + "'") || l.endsWith(" -e \"" + sql + "\""))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the banner prints no command for " + sql + ":\n" + banner));
    }

    /**
     * Runs a printed {@code mariadb} command as the CLI would: the statements of {@code -e}, split on
     * {@code ;}, in one session; the rows of each (an update's as no rows).
     */
    private static List<List<List<String>>> run(String commandLine) throws SQLException {
        Matcher m = COMMAND.matcher(commandLine);
        assertThat(m.matches()).as("a mariadb command: %s", commandLine).isTrue();
        assertThat(m.group(1)).isEqualTo("127.0.0.1");
        List<List<List<String>>> results = new ArrayList<>();
        try (Connection c = Driver.MARIADB.connect(Integer.parseInt(m.group(2)), m.group(5), m.group(3), m.group(4));
                Statement s = c.createStatement()) {
            for (String sql : m.group(7).split(";")) {
                if (s.execute(sql.strip())) {
                    try (ResultSet rs = s.getResultSet()) {
                        results.add(rows(rs));
                    }
                } else {
                    results.add(List.of());
                }
            }
        }
        return results;
    }

    private static int hostgroupOf(String table, long key) {
        return ((KeyedStrategy) rules.schema(DemoCluster.SCHEMA).listed(table).strategy()).hostgroupOf(key);
    }

    private static MariaDbServer shardOf(int hostgroup) {
        return demo.shards().get(hostgroup / 10 - 1);
    }

    private static List<Long> column(MariaDbServer shard, String sql) throws SQLException {
        return rows(shard, sql).stream().map(r -> Long.parseLong(r.get(0))).toList();
    }

    private static List<List<String>> rows(MariaDbServer shard, String sql) throws SQLException {
        try (Connection c = Driver.MARIADB.connect(
                        shard.port(), DemoCluster.SCHEMA, DemoCluster.BACKEND_USER, DemoCluster.BACKEND_PASSWORD);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rows(rs);
        }
    }

    private static List<List<String>> rows(ResultSet rs) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        List<List<String>> out = new ArrayList<>();
        while (rs.next()) {
            List<String> row = new ArrayList<>();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                row.add(rs.getString(i));
            }
            out.add(row);
        }
        return out;
    }

    /** The hostgroups of the target rows of an {@code EXPLAIN SHARDGATE} answer (step, hostgroup, detail). */
    private static List<Integer> targets(List<List<String>> explain) {
        return explain.stream()
                .filter(r -> r.get(0).startsWith("target"))
                .map(r -> Integer.parseInt(r.get(1)))
                .toList();
    }

    private static String flatten(List<List<String>> rows) {
        return rows.stream().map(r -> String.join(" | ", r)).reduce("", (a, b) -> a + b + "\n");
    }
}
