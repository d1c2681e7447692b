package io.shardgate.it.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shardgate.it.Repository;
import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import io.shardgate.protocol.auth.StoredCredential;
import io.shardgate.router.config.AdminSettings;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.config.ServerSettings;
import io.shardgate.router.config.UserConfig;
import io.shardgate.sharding.rule.HashStrategy;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/compose agrees with itself and with the router: the router config both routers mount is
 * accepted by the loader {@code bin/shardgate run} uses, its backends are the compose MySQL services
 * with the accounts their init SQL creates, HAProxy and Prometheus point at the routers' ports, the
 * sysbench runner logs in as a configured user, and a real Compose implementation accepts the file.
 * No Docker engine needed; ComposeClusterIT runs the same config against local MariaDB servers.
 */
class ComposeFilesTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final String MYSQL_IMAGE = "mysql:8.4";
    private static final String ROUTER_IMAGE = "shardgate:local";

    private static Map<String, Map<String, Object>> services;
    private static RouterConfig config;
    private static ServerSettings server;
    private static RuleSnapshot rules;

    @BeforeAll
    static void load() throws Exception {
        services = ComposeFiles.services();
        config = RouterConfig.load(ComposeFiles.ROUTER_CONFIG);
        server = config.server();
        rules = config.rules(1);
    }

    private static List<String> routers() {
        return services.entrySet().stream()
                .filter(e -> ROUTER_IMAGE.equals(e.getValue().get("image")))
                .map(Map.Entry::getKey)
                .toList();
    }

    private static Set<String> mysqlServices() {
        return services.entrySet().stream()
                .filter(e -> MYSQL_IMAGE.equals(e.getValue().get("image")))
                .map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @SuppressWarnings("unchecked")
    private static <T> T get(Map<String, Object> map, String key) {
        return (T) map.get(key);
    }

    private static Map<String, Object> service(String name) {
        assertThat(services).as("compose services").containsKey(name);
        return services.get(name);
    }

    /** container path -> host path (relative to deploy/compose) of a service's bind mounts. */
    private static Map<String, String> mounts(String name) {
        List<String> volumes = get(service(name), "volumes");
        return volumes == null
                ? Map.of()
                : volumes.stream()
                        .map(v -> v.split(":"))
                        .collect(Collectors.toMap(parts -> parts[1], parts -> parts[0]));
    }

    /** container port -> host port. */
    private static Map<Integer, Integer> published(String name) {
        List<String> ports = get(service(name), "ports");
        return ports == null
                ? Map.of()
                : ports.stream()
                        .map(p -> p.split(":"))
                        .collect(Collectors.toMap(p -> Integer.parseInt(p[1]), p -> Integer.parseInt(p[0])));
    }

    /** The config file a router service runs, checked to be the one it mounts at its --config path. */
    private static Path routerConfig(String router) {
        List<String> command = get(service(router), "command");
        assertThat(command).as(router + " command").hasSize(3).startsWith("run", "--config");
        String host = mounts(router).get(command.get(2));
        assertThat(host).as(router + " mounts its --config file").isEqualTo("./router/" + router + ".yaml");
        return ComposeFiles.DIR.resolve(host).normalize();
    }

    @Test
    void twoRoutersRunTheMountedConfigWithTheRealLoader() throws Exception {
        assertThat(routers()).hasSizeGreaterThanOrEqualTo(2);
        for (String router : routers()) {
            RouterConfig own = RouterConfig.load(routerConfig(router));
            // reachable from the other containers, and nothing in the file left at a loopback default
            assertThat(own.server().bind()).as(router).isEqualTo("0.0.0.0");
            assertThat(own.rules(1).schemas()).isNotEmpty();
        }
        assertThat(routerConfig(routers().get(0))).isEqualTo(ComposeFiles.ROUTER_CONFIG);
    }

    @Test
    void routersDifferOnlyInTheirDistinctNodeIds() throws Exception {
        JsonNode first = null;
        Set<Integer> nodeIds = new TreeSet<>();
        for (String router : routers()) {
            Path file = routerConfig(router);
            assertThat(nodeIds.add(RouterConfig.load(file).server().nodeId()))
                    .as(router + "'s server.node_id is its own (snowflake keys of two routers never collide)")
                    .isTrue();
            ObjectNode tree = (ObjectNode) YAML.readTree(file.toFile());
            assertThat(((ObjectNode) tree.get("server")).remove("node_id"))
                    .as(router + " sets server.node_id")
                    .isNotNull();
            if (first == null) {
                first = tree;
            } else {
                assertThat(tree)
                        .as(router + "'s config but for node_id vs " + routers().get(0) + "'s")
                        .isEqualTo(first);
            }
        }
        assertThat(nodeIds).hasSize(routers().size());
    }

    @Test
    void everyPublishedRouterPortListensOnAllInterfacesAndTheAdminPortHasAccounts() {
        for (String router : routers()) {
            ServerSettings own = RouterConfig.load(routerConfig(router)).server();
            assertThat(own.bind())
                    .as(router + ": server.bind covers every port it publishes")
                    .isEqualTo("0.0.0.0");
            assertThat(List.of(own.port(), own.adminPort(), own.httpPort()))
                    .as(router + "'s listeners")
                    .containsAll(published(router).keySet());
            if (published(router).containsKey(own.adminPort())) {
                AdminSettings admin = RouterConfig.load(routerConfig(router)).admin();
                assertThat(admin.sqlEndpointEnabled())
                        .as(router
                                + " publishes its SQL admin port: admin.users must name accounts, or nothing listens")
                        .isTrue();
            }
        }
    }

    @Test
    void routersKeepTheirDataDirInANamedVolumeTheImageDeclares() {
        Map<String, Object> compose = new Yaml().load(ComposeFiles.read(ComposeFiles.COMPOSE));
        Map<String, Object> volumes = get(compose, "volumes");
        Set<String> used = new TreeSet<>();
        String dockerfile = ComposeFiles.read(Repository.file("Dockerfile"));
        for (String router : routers()) {
            String dataDir = RouterConfig.load(routerConfig(router)).server().dataDir();
            String volume = mounts(router).get(dataDir);
            assertThat(volume)
                    .as(router + " mounts a volume at its data_dir " + dataDir)
                    .isNotNull();
            assertThat(volumes).as("top-level volumes").containsKey(volume);
            assertThat(used.add(volume)).as(volume + " used by one router").isTrue();
            assertThat(dockerfile).contains("VOLUME [\"" + dataDir + "\"]");
        }
    }

    @Test
    void theImagesDefaultConfigListensOnAllInterfacesWhileTheRoutersDefaultStaysOnLoopback() {
        String dockerfile = ComposeFiles.read(Repository.file("Dockerfile"));
        Matcher cmd = Pattern.compile("(?m)^CMD \\[\"run\", \"--config\", \"([^\"]+)\"]$")
                .matcher(dockerfile);
        assertThat(cmd.find()).as("the image's CMD runs a --config file").isTrue();
        Matcher copy = Pattern.compile("(?m)^COPY (\\S+) " + Pattern.quote(cmd.group(1)) + "$")
                .matcher(dockerfile);
        assertThat(copy.find())
                .as("the Dockerfile copies the config its CMD runs from the build context")
                .isTrue();
        String source = copy.group(1);
        DockerIgnore ignore = DockerIgnore.read(Repository.file(".dockerignore"));
        assertThat(ignore.excludes(source))
                .as(source + " is in the build context (.dockerignore)")
                .isFalse();
        assertThat(ignore.excludes("router-core/target/shardgate.jar"))
                .as("build output stays out")
                .isTrue();
        assertThat(ignore.excludes("deploy/compose/docker-compose.yml")).isTrue();
        ServerSettings image = RouterConfig.load(Repository.file(source)).server();
        assertThat(image.bind()).as("reachable through docker run -p").isEqualTo("0.0.0.0");
        assertThat(dockerfile).contains("VOLUME [\"" + image.dataDir() + "\"]");
        assertThat(dockerfile).containsPattern("(?m)^WORKDIR " + Pattern.quote(image.dataDir()) + "$");
        ServerSettings defaults = RouterConfig.parse(
                        "users: [{name: a, password: b}]\nhostgroups: [{id: 1, writer: \"h:3306\", user: u}]")
                .server();
        assertThat(defaults.bind()).as("the router's own default").isEqualTo("127.0.0.1");
        assertThat(RouterConfig.load(Repository.file("router-core/src/dist/conf/shardgate.yaml"))
                        .server()
                        .bind())
                .as("the tarball's sample config")
                .isEqualTo("127.0.0.1");
    }

    @Test
    void routersPublishTheirAdminAndHttpPortsAndAreCheckedOnHealth() {
        for (String router : routers()) {
            assertThat(published(router).keySet()).containsExactlyInAnyOrder(server.adminPort(), server.httpPort());
            Map<String, Object> healthcheck = get(service(router), "healthcheck");
            List<String> test = get(healthcheck, "test");
            assertThat(String.join(" ", test)).contains("http://127.0.0.1:" + server.httpPort() + "/health");
        }
        Set<Integer> hostPorts = new TreeSet<>();
        services.keySet()
                .forEach(s -> published(s)
                        .values()
                        .forEach(port -> assertThat(hostPorts.add(port))
                                .as("host port " + port + " published once")
                                .isTrue()));
    }

    @Test
    void everyHostgroupServerIsAComposeMySqlServiceOnItsPort() {
        Set<String> used = new TreeSet<>();
        for (HostgroupConfig hostgroup : config.hostgroups()) {
            List<String> servers = new ArrayList<>();
            hostgroup.readers().forEach(reader -> servers.add(reader.address()));
            servers.add(hostgroup.writer());
            for (String server : servers) {
                BackendAddress address = BackendAddress.parse(server);
                assertThat(mysqlServices()).as("hostgroup " + hostgroup.id()).contains(address.host());
                assertThat(address.port()).isEqualTo(3306);
                assertThat(used.add(address.host()))
                        .as(address.host() + " in one hostgroup only")
                        .isTrue();
            }
        }
        assertThat(used).as("every MySQL service serves a hostgroup").isEqualTo(mysqlServices());
        assertThat(config.hostgroups()).hasSize(4);
    }

    @Test
    void shardsCreateTheBackendAccountAndEverySchemaDatabase() {
        Map<String, String> users = ComposeFiles.initUsers();
        Map<String, String> grants = ComposeFiles.initGrants();
        Set<String> schemas = rules.schemas().keySet();
        for (HostgroupConfig hostgroup : config.hostgroups()) {
            assertThat(users).containsEntry(hostgroup.user(), hostgroup.password());
            assertThat(schemas).containsExactly(grants.get(hostgroup.user()));
            String writer = hostgroup.writerAddress().host();
            assertThat(mounts(writer))
                    .as(writer + " runs the init SQL")
                    .containsEntry("/docker-entrypoint-initdb.d", "./mysql/init");
        }
        assertThat(ComposeFiles.initDatabases()).containsExactlyInAnyOrderElementsOf(schemas);
    }

    @Test
    void theReplicaReplicatesItsHostgroupsWriterWithTheInitScriptsAccount() {
        Map<String, String> source = ComposeFiles.replicationSource();
        List<HostgroupConfig> withReaders =
                config.hostgroups().stream().filter(h -> !h.readers().isEmpty()).toList();
        assertThat(withReaders).hasSize(1);
        HostgroupConfig hostgroup = withReaders.get(0);
        String replica =
                BackendAddress.parse(hostgroup.readers().get(0).address()).host();
        String writer = hostgroup.writerAddress().host();

        assertThat(source)
                .containsEntry("SOURCE_HOST", writer)
                .containsEntry("SOURCE_PORT", "3306")
                .containsEntry("SOURCE_AUTO_POSITION", "1");
        assertThat(ComposeFiles.initUsers()).containsEntry(source.get("SOURCE_USER"), source.get("SOURCE_PASSWORD"));
        assertThat(mounts(replica)).containsEntry("/docker-entrypoint-initdb.d", "./mysql/replica");
        Map<String, Map<String, String>> dependsOn = get(service(replica), "depends_on");
        assertThat(dependsOn.get(writer)).containsEntry("condition", "service_healthy");
        for (String mysql : List.of(writer, replica)) {
            assertThat(String.join(" ", command(mysql))).contains("--gtid-mode=ON", "--enforce-gtid-consistency=ON");
        }
        Set<String> serverIds = new LinkedHashSet<>();
        mysqlServices()
                .forEach(s -> serverIds.add(command(s).stream()
                        .filter(arg -> arg.startsWith("--server-id="))
                        .findFirst()
                        .orElseThrow()));
        assertThat(serverIds).as("distinct server ids").hasSize(mysqlServices().size());
    }

    private List<String> command(String service) {
        return get(service(service), "command");
    }

    @Test
    void routersStartAfterZooKeeperAndEveryShardAreHealthy() {
        BackendAddress zookeeper = BackendAddress.parse(config.zookeeper().connect());
        assertThat(service(zookeeper.host()).get("image").toString()).startsWith("zookeeper:");
        assertThat(zookeeper.port()).isEqualTo(2181);
        Set<String> expected = new TreeSet<>(mysqlServices());
        expected.add(zookeeper.host());
        for (String router : routers()) {
            Map<String, Map<String, String>> dependsOn = get(service(router), "depends_on");
            assertThat(dependsOn.keySet()).containsExactlyInAnyOrderElementsOf(expected);
            dependsOn.values().forEach(d -> assertThat(d).containsEntry("condition", "service_healthy"));
        }
        // a service_healthy dependency needs a healthcheck
        for (Map<String, Object> service : services.values()) {
            Object dependsOn = service.get("depends_on");
            if (dependsOn instanceof Map<?, ?> conditions) {
                conditions.forEach((name, condition) -> {
                    if (((Map<?, ?>) condition).get("condition").equals("service_healthy")) {
                        assertThat(service(name.toString())).containsKey("healthcheck");
                    }
                });
            }
        }
    }

    @Test
    void haproxyBalancesTheRoutersMySqlPortsAndChecksReadiness() {
        String cfg = ComposeFiles.read(ComposeFiles.DIR.resolve("haproxy/haproxy.cfg"));
        assertThat(mounts("haproxy")).containsEntry("/usr/local/etc/haproxy/haproxy.cfg", "./haproxy/haproxy.cfg");
        Matcher server = Pattern.compile("(?m)^\\s*server (\\S+) (\\S+)$").matcher(cfg);
        List<String> backends = new ArrayList<>();
        while (server.find()) {
            BackendAddress address = BackendAddress.parse(server.group(2));
            assertThat(address.port()).isEqualTo(ComposeFilesTest.server.port());
            backends.add(address.host());
        }
        assertThat(backends).containsExactlyInAnyOrderElementsOf(routers());
        assertThat(cfg)
                .contains("mode tcp")
                .contains("option httpchk GET /ready")
                .contains("check port " + ComposeFilesTest.server.httpPort());
        Matcher bind =
                Pattern.compile("(?m)^frontend mysql\\n\\s*bind :(\\d+)$").matcher(cfg);
        assertThat(bind.find()).as("frontend mysql binds a port").isTrue();
        assertThat(published("haproxy")).containsEntry(Integer.parseInt(bind.group(1)), 6033);
        Map<String, Map<String, String>> dependsOn = get(service("haproxy"), "depends_on");
        assertThat(dependsOn.keySet()).containsExactlyInAnyOrderElementsOf(routers());
    }

    @Test
    void haproxyAcceptsItsConfig() throws Exception {
        Path haproxy = ExternalTool.HAPROXY.require();
        ToolRun check = ToolRun.run(
                Duration.ofMinutes(1),
                List.of(
                        haproxy.toString(),
                        "-c",
                        "-f",
                        ComposeFiles.DIR.resolve("haproxy/haproxy.cfg").toString()));
        assertThat(check.exitCode()).as(check.toString()).isZero();
        assertThat(check.stdout()).as(check.toString()).contains("Configuration file is valid");
        // outside the Compose network the routers' names do not resolve; nothing else may warn
        (check.stdout() + check.stderr())
                .lines()
                .filter(line -> line.contains("[WARNING]") || line.contains("[ALERT]"))
                .forEach(line -> assertThat(line).as(check.toString()).contains("could not resolve address"));
    }

    @Test
    void prometheusScrapesEveryRoutersMetrics() throws Exception {
        JsonNode prometheus = YAML.readTree(
                ComposeFiles.DIR.resolve("prometheus/prometheus.yml").toFile());
        assertThat(mounts("prometheus")).containsEntry("/etc/prometheus/prometheus.yml", "./prometheus/prometheus.yml");
        JsonNode job = prometheus.get("scrape_configs").get(0);
        assertThat(job.get("metrics_path").asText()).isEqualTo("/metrics");
        List<String> targets = new ArrayList<>();
        job.get("static_configs").get(0).get("targets").forEach(t -> targets.add(t.asText()));
        assertThat(targets)
                .containsExactlyInAnyOrderElementsOf(
                        routers().stream().map(r -> r + ":" + server.httpPort()).toList());
    }

    @Test
    void grafanaIsProvisionedWithPrometheusAndTheDashboard() throws Exception {
        Map<String, String> mounts = mounts("grafana");
        JsonNode datasources = YAML.readTree(ComposeFiles.DIR
                .resolve(mounts.get("/etc/grafana/provisioning"))
                .resolve("datasources/prometheus.yml")
                .toFile());
        assertThat(datasources.at("/datasources/0/url").asText()).isEqualTo("http://prometheus:9090");
        assertThat(services).containsKey("prometheus");
        JsonNode provider = YAML.readTree(ComposeFiles.DIR
                .resolve(mounts.get("/etc/grafana/provisioning"))
                .resolve("dashboards/shardgate.yml")
                .toFile());
        String dashboards = provider.at("/providers/0/options/path").asText();
        Path hostDir = ComposeFiles.DIR.resolve(mounts.get(dashboards));
        JsonNode dashboard =
                new ObjectMapper().readTree(hostDir.resolve("shardgate.json").toFile());
        assertThat(dashboard.get("panels")).isNotEmpty();
        dashboard
                .get("panels")
                .forEach(panel -> assertThat(panel.at("/datasource/uid").asText())
                        .isEqualTo(datasources.at("/datasources/0/uid").asText()));
    }

    @Test
    void sysbenchLogsInThroughHaproxyAsAConfiguredUserToTheShardedSchema() {
        Map<String, String> env = get(service("sysbench"), "environment");
        assertThat(env.get("MYSQL_HOST")).isEqualTo("haproxy");
        assertThat(published("haproxy")).containsKey(Integer.parseInt(env.get("MYSQL_PORT")));
        UserConfig user = config.users().stream()
                .filter(u -> u.name().equals(env.get("MYSQL_USER")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no user " + env.get("MYSQL_USER") + " in the router config"));
        assertThat(user.credential()).isEqualTo(StoredCredential.fromPassword(env.get("MYSQL_PASSWORD")));
        var schema = rules.schema(env.get("MYSQL_DB"));
        assertThat(schema).as("schema " + env.get("MYSQL_DB")).isNotNull();
        int tables = Integer.parseInt(env.get("TABLES"));
        for (int i = 1; i <= tables; i++) {
            assertThat(schema.listed("sbtest" + i))
                    .as("sbtest" + i + " has a rule")
                    .isNotNull();
        }
        // the scatter scenario runs on the hash-sharded tables, which are one binding group
        assertThat(env.get("SCENARIO").split(" ")).contains("scatter");
        List<String> hashed = Pattern.compile(",")
                .splitAsStream(env.get("HASH_TABLES"))
                .map(n -> "sbtest" + n.strip())
                .toList();
        assertThat(hashed).hasSizeGreaterThanOrEqualTo(2);
        for (String table : hashed) {
            assertThat(Integer.parseInt(table.substring("sbtest".length()))).isBetween(1, tables);
            assertThat(schema.listed(table).strategy()).as(table).isInstanceOf(HashStrategy.class);
            assertThat(((HashStrategy) schema.listed(table).strategy()).hostgroups())
                    .as(table + " spreads over every hostgroup")
                    .containsExactlyInAnyOrderElementsOf(config.hostgroups().stream()
                            .map(HostgroupConfig::id)
                            .toList());
            assertThat(schema.bound(table, hashed.get(0)))
                    .as(table + " and " + hashed.get(0) + " in one binding group")
                    .isTrue();
        }
        assertThat(schema.tables().values().stream().filter(t -> !t.sharded()))
                .as("tables placed whole, as in the seed experiment")
                .isNotEmpty();
        assertThat(ComposeFiles.read(ComposeFiles.DIR.resolve("sysbench/Dockerfile")))
                .containsPattern("(?m)^COPY run.sh scatter.lua (\\S+)/$");
        Map<String, Map<String, String>> dependsOn = get(service("sysbench"), "depends_on");
        assertThat(dependsOn.get("haproxy")).containsEntry("condition", "service_healthy");
    }

    @Test
    void dockerfileExposesTheRoutersPortsAndRunsAsNonRoot() {
        String dockerfile = ComposeFiles.read(Repository.file("Dockerfile"));
        ServerSettings defaults = RouterConfig.parse(
                        "users: [{name: a, password: b}]\nhostgroups: [{id: 1, writer: \"h:3306\", user: u}]")
                .server();
        assertThat(dockerfile)
                .contains("EXPOSE " + defaults.port() + " " + defaults.adminPort() + " " + defaults.httpPort())
                .contains("http://127.0.0.1:" + defaults.httpPort() + "/health")
                .contains("FROM eclipse-temurin:17-jre")
                .containsPattern("--uid 10001 ")
                .containsPattern("(?m)^USER 10001:10001$");
        assertThat(List.of(server.port(), server.adminPort(), server.httpPort()))
                .as("the compose config keeps the image's ports")
                .containsExactly(defaults.port(), defaults.adminPort(), defaults.httpPort());
    }

    @Test
    void dockerfilesPassHadolint() throws Exception {
        Path hadolint = ExternalTool.HADOLINT.require();
        ToolRun lint = ToolRun.run(
                Duration.ofMinutes(1),
                List.of(
                        hadolint.toString(),
                        "--no-color",
                        "--config",
                        Repository.file(".hadolint.yaml").toString(),
                        Repository.file("Dockerfile").toString(),
                        ComposeFiles.DIR.resolve("sysbench/Dockerfile").toString()));
        assertThat(lint.exitCode()).as(lint.toString()).isZero();
    }

    @Test
    void dockerComposeAcceptsTheFile() throws Exception {
        Path compose = ExternalTool.DOCKER_COMPOSE.require();
        ToolRun run = ToolRun.run(
                Duration.ofMinutes(2), List.of(compose.toString(), "-f", ComposeFiles.COMPOSE.toString(), "config"));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.stderr()).as(run.toString()).doesNotContainIgnoringCase("warn");
        // Compose's own rendering has the same services as our reading of the file.
        @SuppressWarnings("unchecked")
        Map<String, Object> rendered = (Map<String, Object>) new Yaml().load(run.stdout());
        assertThat(((Map<?, ?>) rendered.get("services")).keySet()).isEqualTo(services.keySet());
    }
}
