package io.shardgate.router.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.router.config.ConfigException;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.control.ClusterDocuments;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code shardgate admin}: show, validate and apply a cluster's configuration (hostgroups, users,
 * schemas, query rules, cache) through a router's HTTP API or straight in ZooKeeper, and show the
 * live version and routers. Exit codes: 0 done, 1 refused or unreachable, 2 a bad file or usage.
 */
@Command(
        name = "admin",
        mixinStandardHelpOptions = true,
        description = "Show, validate and apply a cluster's configuration; show the live version and routers.",
        subcommands = {
            AdminCommand.Status.class,
            AdminCommand.Show.class,
            AdminCommand.Validate.class,
            AdminCommand.Apply.class,
            MoveCommand.class
        })
public final class AdminCommand implements Runnable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));
    private static final List<String> SECTION_ORDER = List.of(
            ConfigDocuments.HOSTGROUPS,
            ConfigDocuments.USERS,
            ConfigDocuments.SCHEMAS,
            ConfigDocuments.QUERY_RULES,
            ConfigDocuments.CACHE);

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Which cluster: a router's HTTP endpoint (default) or a ZooKeeper root. */
    static final class Target {
        @Option(
                names = "--url",
                paramLabel = "URL",
                description = "a router's HTTP endpoint (default: ${DEFAULT-VALUE})",
                defaultValue = "http://127.0.0.1:6080")
        URI url;

        @Option(
                names = "--zookeeper",
                paramLabel = "CONNECT",
                description = "talk to ZooKeeper directly instead (host:port[,host:port...]), e.g. when no router runs")
        String zookeeper;

        @Option(
                names = "--root",
                paramLabel = "PATH",
                description = "the cluster's root in ZooKeeper (default: ${DEFAULT-VALUE})",
                defaultValue = "/shardgate/default")
        String root;

        @Option(
                names = "--connect-timeout",
                paramLabel = "SECONDS",
                description = "how long to wait for ZooKeeper to answer (default: ${DEFAULT-VALUE})",
                defaultValue = "15")
        int connectTimeoutSeconds;

        ClusterEndpoint open(RouterConfig local) throws InterruptedException {
            if (zookeeper == null) {
                return new HttpClusterEndpoint(url);
            }
            // the ZooKeeper client's own lines (connects, retries, stack traces) would bury the answer
            CliLogging.quietZooKeeperClient();
            return new ZooKeeperClusterEndpoint(zookeeper, root, local, Duration.ofSeconds(connectTimeoutSeconds));
        }
    }

    /** Prints an answer that is not a success and returns the exit code. */
    private static int failed(ClusterEndpoint.Answer answer, PrintWriter err) {
        err.println("shardgate admin: " + answer.status() + " "
                + answer.body().path("error").asText());
        for (JsonNode problem : answer.body().path("problems")) {
            err.println("  - " + problem.asText());
        }
        return 1;
    }

    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description = "The version in force, ZooKeeper, the last refused version, live routers.")
    static final class Status implements Callable<Integer> {
        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Mixin
        Target target = new Target();

        @Override
        public Integer call() throws Exception {
            try (ClusterEndpoint endpoint = target.open(null)) {
                ClusterEndpoint.Answer answer = endpoint.status();
                if (answer.status() != 200) {
                    return failed(answer, spec.commandLine().getErr());
                }
                JsonNode s = answer.body();
                spec.commandLine()
                        .getOut()
                        .println("config version: " + s.path("version").asLong()
                                + (s.path("connected").asBoolean() ? "" : " (ZooKeeper disconnected)"));
                JsonNode rejection = s.path("lastRejection");
                if (rejection.isObject()) {
                    spec.commandLine()
                            .getOut()
                            .println("last refused:   version "
                                    + rejection.path("version").asLong() + " ("
                                    + rejection.path("source").asText() + ")");
                    rejection
                            .path("problems")
                            .forEach(p -> spec.commandLine().getOut().println("  - " + p.asText()));
                }
                spec.commandLine().getOut().println("routers:");
                for (JsonNode router : s.path("routers")) {
                    spec.commandLine()
                            .getOut()
                            .println("  " + router.path("id").asText() + "  host "
                                    + router.path("host").asText() + "  ports " + router.path("ports") + "  version "
                                    + router.path("configVersion").asLong());
                }
                return 0;
            }
        }
    }

    @Command(
            name = "show",
            mixinStandardHelpOptions = true,
            description = "Print the cluster's configuration as YAML (apply accepts it back).")
    static final class Show implements Callable<Integer> {
        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Mixin
        Target target = new Target();

        @Option(names = "--json", description = "print the raw /api/config JSON instead")
        boolean json;

        @Override
        public Integer call() throws Exception {
            try (ClusterEndpoint endpoint = target.open(null)) {
                ClusterEndpoint.Answer answer = endpoint.config();
                if (answer.status() != 200) {
                    return failed(answer, spec.commandLine().getErr());
                }
                if (json) {
                    spec.commandLine()
                            .getOut()
                            .println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(answer.body()));
                    return 0;
                }
                spec.commandLine()
                        .getOut()
                        .println("# cluster configuration version "
                                + answer.body().path("version").asLong());
                spec.commandLine()
                        .getOut()
                        .print(YAML.writeValueAsString(asTree(answer.body().path("documents"))));
                spec.commandLine().getOut().flush();
                return 0;
            }
        }

        private static ObjectNode asTree(JsonNode documents) throws Exception {
            ObjectNode tree = YAML.createObjectNode();
            for (String section : SECTION_ORDER) {
                if (documents.has(section)) {
                    tree.set(section, YAML.readTree(documents.get(section).asText()));
                }
            }
            return tree;
        }
    }

    /** The rules file: a router YAML (its server and zookeeper sections are ignored here). */
    static final class RulesFile {
        @Option(
                names = {"-c", "--config"},
                required = true,
                paramLabel = "FILE",
                description = "YAML with hostgroups, users, schemas, query_rules, cache")
        Path file;

        RouterConfig load() {
            return RouterConfig.load(file);
        }
    }

    @Command(
            name = "validate",
            mixinStandardHelpOptions = true,
            description = "Check a rules file as a router would, without publishing it.")
    static final class Validate implements Callable<Integer> {
        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Mixin
        RulesFile rules = new RulesFile();

        @Override
        public Integer call() {
            RouterConfig config;
            try {
                config = rules.load();
            } catch (ConfigException e) {
                spec.commandLine().getErr().println("shardgate admin: " + e.getMessage());
                return 2;
            }
            spec.commandLine()
                    .getOut()
                    .println(rules.file + " is valid: " + config.hostgroups().size() + " hostgroups, "
                            + config.users().size() + " users, "
                            + config.schemas().size() + " schemas, "
                            + config.queryRules().size() + " query rules");
            return 0;
        }
    }

    @Command(
            name = "apply",
            mixinStandardHelpOptions = true,
            description =
                    "Validate a rules file and publish it as the cluster's next version (or seed an empty cluster with --zookeeper).")
    static final class Apply implements Callable<Integer> {
        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Mixin
        RulesFile rules = new RulesFile();

        @Mixin
        Target target = new Target();

        @Option(
                names = "--based-on",
                paramLabel = "N",
                description = "publish only if the cluster is still at version N")
        Long basedOn;

        @Override
        public Integer call() throws Exception {
            RouterConfig config;
            try {
                config = rules.load();
            } catch (ConfigException e) {
                spec.commandLine().getErr().println("shardgate admin: " + e.getMessage());
                return 2;
            }
            ConfigDocuments documents = ClusterDocuments.of(config);
            try (ClusterEndpoint endpoint = target.open(config)) {
                if (endpoint instanceof ZooKeeperClusterEndpoint zk && basedOn == null && zk.seed(documents)) {
                    spec.commandLine().getOut().println("seeded " + target.root + " with version 1");
                    return 0;
                }
                ClusterEndpoint.Answer answer =
                        endpoint.publish(basedOn == null ? OptionalLong.empty() : OptionalLong.of(basedOn), documents);
                if (answer.status() != 200) {
                    return failed(answer, spec.commandLine().getErr());
                }
                spec.commandLine()
                        .getOut()
                        .println("published version "
                                + answer.body().path("version").asLong());
                return 0;
            }
        }
    }
}
