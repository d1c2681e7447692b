package io.shardgate.it.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.it.tools.ExternalTool;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.TableRule;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Compose cluster's router config and shard init SQL, run here without Docker: four real
 * MariaDB servers stand in for mysql1..mysql4, each initialised as root with
 * deploy/compose/mysql/init/01-shardgate.sql, and a router loads deploy/compose/router/router1.yaml
 * with only the addresses changed (service names become the local servers' 127.0.0.1 ports; the
 * replica's name maps to its writer's server, replication itself needs the real cluster). The
 * compose sysbench runner's scenarios (sysbench's own and the scatter workload) then run through
 * it; every table placed whole is found on the shard its rule names and nowhere else, and every row
 * of a hash-sharded table on the shard its id's bucket names.
 */
class ComposeClusterIT {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final int TABLE_SIZE = 200;
    private static final int EVENTS = 400;

    @TempDir
    static Path dataDir;

    /** compose service name -> the local server standing in for it. */
    private static final Map<String, MariaDbServer> servers = new LinkedHashMap<>();

    private static Shardgate router;
    private static RuleSnapshot rules;
    private static Map<String, String> sysbenchEnv;

    @BeforeAll
    static void start() throws Exception {
        JsonNode config = YAML.readTree(ComposeFiles.ROUTER_CONFIG.toFile());
        for (JsonNode hostgroup : config.get("hostgroups")) {
            MariaDbServer server = MariaDbServer.builder()
                    .innodbBufferPoolSize("32M")
                    .arg("--max-connections=300")
                    .start();
            servers.put(BackendAddress.parse(hostgroup.get("writer").asText()).host(), server);
            try (Connection root = Driver.MARIADB.connect(server.port(), null, "root", server.rootPassword());
                    Statement s = root.createStatement()) {
                for (String statement : ComposeFiles.statements(ComposeFiles.INIT_SQL)) {
                    s.execute(statement);
                }
            }
        }
        router = Shardgate.start(localized((ObjectNode) config));
        rules = RouterConfig.load(ComposeFiles.ROUTER_CONFIG).rules(1);
        @SuppressWarnings("unchecked")
        Map<String, String> env =
                (Map<String, String>) ComposeFiles.services().get("sysbench").get("environment");
        sysbenchEnv = env;
    }

    /** The compose config with every service address replaced by a local one. */
    private static RouterConfig localized(ObjectNode config) throws Exception {
        ((ObjectNode) config.get("server"))
                .put("bind", "127.0.0.1")
                .put("port", 0)
                .put("admin_port", 0)
                .put("http_port", 0)
                .put(
                        "data_dir",
                        Files.createDirectories(dataDir.resolve("router")).toString());
        ((ObjectNode) config.get("zookeeper")).put("connect", ""); // embedded, in data_dir
        for (JsonNode node : config.get("hostgroups")) {
            ObjectNode hostgroup = (ObjectNode) node;
            MariaDbServer writer = local(hostgroup.get("writer").asText());
            hostgroup.put("writer", writer.address());
            // The compose replica has no local counterpart (no replication here; ReadWriteSplitIT
            // covers readers on a real replica), and a reader may not be its own writer.
            hostgroup.remove("readers");
        }
        return RouterConfig.parse(YAML.writeValueAsString(config));
    }

    private static MariaDbServer local(String composeAddress) {
        MariaDbServer server = servers.get(BackendAddress.parse(composeAddress).host());
        assertThat(server).as("a local server for " + composeAddress).isNotNull();
        return server;
    }

    @AfterAll
    static void stop() {
        if (router != null) {
            router.close();
        }
        servers.values().forEach(MariaDbServer::close);
    }

    private static Connection proxied() throws SQLException {
        return Driver.MARIADB.connect(
                router.mysqlPort(),
                sysbenchEnv.get("MYSQL_DB"),
                sysbenchEnv.get("MYSQL_USER"),
                sysbenchEnv.get("MYSQL_PASSWORD"));
    }

    /** The sbtest tables on a shard, read directly with the routers' backend account. */
    private static Set<String> tablesOn(MariaDbServer server) throws SQLException {
        HostgroupAccount account = HostgroupAccount.of(ComposeFiles.ROUTER_CONFIG);
        Set<String> tables = new TreeSet<>();
        try (Connection c = Driver.MARIADB.connect(
                        server.port(), sysbenchEnv.get("MYSQL_DB"), account.user(), account.password());
                ResultSet rs = c.createStatement().executeQuery("SHOW TABLES LIKE 'sbtest%'")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        return tables;
    }

    /**
     * Where the compose rules place {@code sbtest1..count}: compose service -> tables; a table placed
     * whole is on its hostgroup's server only, a hash-sharded one on each of its hostgroups' servers.
     */
    private static Map<String, Set<String>> expectedPlacement(int count) throws Exception {
        RouterConfig config = RouterConfig.load(ComposeFiles.ROUTER_CONFIG);
        Map<String, Set<String>> placement = new LinkedHashMap<>();
        servers.keySet().forEach(service -> placement.put(service, new TreeSet<>()));
        for (int i = 1; i <= count; i++) {
            String table = "sbtest" + i;
            TableRule rule = rules.schema(sysbenchEnv.get("MYSQL_DB")).listed(table);
            List<Integer> hostgroups = rule.sharded()
                    ? rule.keyed().hostgroups()
                    : List.of(rules.anyHostgroupOf(sysbenchEnv.get("MYSQL_DB"), table));
            for (int hostgroup : hostgroups) {
                placement
                        .get(config.hostgroup(hostgroup).writerAddress().host())
                        .add(table);
            }
        }
        return placement;
    }

    /** Tables placed whole, by the compose service that holds them. */
    private static Map<String, Set<String>> wholeTablePlacement(int count) throws Exception {
        Map<String, Set<String>> placement = expectedPlacement(count);
        placement
                .values()
                .forEach(tables -> tables.removeIf(
                        t -> rules.schema(sysbenchEnv.get("MYSQL_DB")).listed(t).sharded()));
        return placement;
    }

    /** Every row of each hash-sharded table, read from each shard directly, is where its id's bucket says. */
    private static void assertHashedRowsOnTheirShards(int count) throws Exception {
        RouterConfig config = RouterConfig.load(ComposeFiles.ROUTER_CONFIG);
        HostgroupAccount account = HostgroupAccount.of(ComposeFiles.ROUTER_CONFIG);
        int hashed = 0;
        for (int i = 1; i <= count; i++) {
            TableRule rule = rules.schema(sysbenchEnv.get("MYSQL_DB")).listed("sbtest" + i);
            if (!rule.sharded()) {
                continue;
            }
            hashed++;
            int rows = 0;
            Set<Integer> shardsWithRows = new TreeSet<>();
            for (HostgroupConfig hostgroup : config.hostgroups()) {
                MariaDbServer server = servers.get(hostgroup.writerAddress().host());
                try (Connection c = Driver.MARIADB.connect(
                                server.port(), sysbenchEnv.get("MYSQL_DB"), account.user(), account.password());
                        ResultSet rs = c.createStatement().executeQuery("SELECT id FROM sbtest" + i)) {
                    while (rs.next()) {
                        long id = rs.getLong(1);
                        assertThat(rule.keyed().hostgroupOf(id))
                                .as("sbtest%d row id %d found on hostgroup %d", i, id, hostgroup.id())
                                .isEqualTo(hostgroup.id());
                        rows++;
                        shardsWithRows.add(hostgroup.id());
                    }
                }
            }
            assertThat(rows).as("rows of sbtest" + i + " over all shards").isEqualTo(TABLE_SIZE);
            assertThat(shardsWithRows)
                    .as("shards holding rows of sbtest" + i)
                    .hasSize(config.hostgroups().size());
        }
        assertThat(hashed).as("hash-sharded tables in the compose rules").isPositive();
    }

    @Test
    void theComposeSysbenchRunnerPreparesAndRunsItsScenarioThroughTheRouter() throws Exception {
        ExternalTool.SYSBENCH.require();
        ExternalTool.MARIADB_CLI.require();
        int tables = Integer.parseInt(sysbenchEnv.get("TABLES"));
        // the compose sysbench service's runner script with the service's environment; only where
        // to connect and the amount of work differ (a fixed number of transactions, no duration)
        ProcessBuilder runner = new ProcessBuilder(
                        ComposeFiles.DIR.resolve("sysbench/run.sh").toString())
                .redirectErrorStream(true)
                .redirectOutput(dataDir.resolve("run-benchmark.log").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Map<String, String> env = runner.environment();
        env.putAll(sysbenchEnv);
        env.put("MYSQL_HOST", "127.0.0.1");
        env.put("MYSQL_PORT", Integer.toString(router.mysqlPort()));
        env.put("TABLE_SIZE", Integer.toString(TABLE_SIZE));
        env.put("THREADS", "4");
        env.put("DURATION", "0");
        env.put("EVENTS", Integer.toString(EVENTS));
        env.put("PREPARE", "always");
        env.put("WAIT_SECONDS", "60");
        Process process = runner.start();
        if (!process.waitFor(10, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String output = Files.readString(dataDir.resolve("run-benchmark.log"));
        assertThat(process.isAlive() ? -1 : process.exitValue()).as(output).isZero();
        String[] scenarios = sysbenchEnv.get("SCENARIO").split(" ");
        assertThat(scenarios).contains("scatter");
        for (String scenario : scenarios) {
            assertThat(output).as(output).contains("[sysbench-runner] running " + scenario + ":");
        }
        // one report per scenario, each with every transaction done and no error ignored
        assertThat(output.split("transactions: +" + EVENTS + " ", -1))
                .as(output)
                .hasSize(scenarios.length + 1);
        assertThat(output.split("ignored errors: +0 ", -1)).as(output).hasSize(scenarios.length + 1);
        assertThat(output).doesNotContain("FATAL");

        Map<String, Set<String>> expected = expectedPlacement(tables);
        for (Map.Entry<String, MariaDbServer> shard : servers.entrySet()) {
            assertThat(tablesOn(shard.getValue()))
                    .as("tables on " + shard.getKey())
                    .isEqualTo(expected.get(shard.getKey()));
        }
        assertHashedRowsOnTheirShards(tables);
        try (Connection c = proxied();
                Statement s = c.createStatement()) {
            for (int i = 1; i <= tables; i++) {
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM sbtest" + i)) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).as("rows of sbtest" + i).isEqualTo(TABLE_SIZE);
                }
            }
            for (int i = 1; i <= tables; i++) {
                s.execute("DROP TABLE sbtest" + i);
            }
        }
    }

    @Test
    void rowsWrittenThroughTheRouterLiveOnlyOnTheShardTheirTablesRuleNames() throws Exception {
        int tables = Integer.parseInt(sysbenchEnv.get("TABLES"));
        Map<String, Set<String>> placement = wholeTablePlacement(tables);
        for (Map.Entry<String, Set<String>> shard : placement.entrySet()) {
            // one table placed whole per shard, created, filled and read through the router
            String table = shard.getValue().iterator().next();
            try (Connection c = proxied();
                    Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
                s.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(120), pad CHAR(60))");
                try {
                    s.execute(
                            "INSERT INTO " + table + " (id, k, c, pad) VALUES (1, 10, 'one', ''), (2, 20, 'two', '')");
                    try (ResultSet rs = s.executeQuery("SELECT SUM(k) FROM " + table)) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getInt(1)).isEqualTo(30);
                    }
                    for (Map.Entry<String, MariaDbServer> server : servers.entrySet()) {
                        assertThat(tablesOn(server.getValue()).contains(table))
                                .as(table + " on " + server.getKey())
                                .isEqualTo(server.getKey().equals(shard.getKey()));
                    }
                } finally {
                    s.execute("DROP TABLE " + table);
                }
            }
        }
    }

    /** The backend account every compose hostgroup uses (ComposeFilesTest checks they agree). */
    private record HostgroupAccount(String user, String password) {
        static HostgroupAccount of(Path config) {
            var hostgroup = RouterConfig.load(config).hostgroups().get(0);
            return new HostgroupAccount(hostgroup.user(), hostgroup.password());
        }
    }
}
