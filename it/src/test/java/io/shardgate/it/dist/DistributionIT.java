package io.shardgate.it.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shardgate.it.Driver;
import io.shardgate.it.docs.DocsLinksTest;
import io.shardgate.it.server.MariaDbServer;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution tarball ({@code ./mvnw package} in router-core) unpacked into an empty
 * directory works without Maven or the source tree: {@code bin/shardgate --version}, {@code --help},
 * a rejected configuration, and the shipped {@code conf/shardgate.yaml} serving a query from a real
 * MariaDB server in a JVM the launcher sized from it.
 */
class DistributionIT {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** Bound on any one command; a hang fails the test instead of blocking the build. */
    private static final long COMMAND_TIMEOUT_SECONDS = 120;

    @TempDir
    static Path unpacked;

    private static Path home;

    @BeforeAll
    static void unpack() throws Exception {
        Path tarball = Path.of(System.getProperty("shardgate.dist.tarball", "missing"));
        assertThat(tarball)
                .as("the tarball router-core's package phase builds (run with -am)")
                .isRegularFile();
        Run tar = run(unpacked, List.of("tar", "xzf", tarball.toString(), "-C", unpacked.toString()));
        assertThat(tar.exit()).as(tar.toString()).isZero();
        home = unpacked.resolve("shardgate-" + version());
        assertThat(home).isDirectory();
    }

    private static String version() {
        return System.getProperty("shardgate.version", "unknown");
    }

    @Test
    void shipsLauncherJarSampleConfigAndDocs() {
        assertThat(home.resolve("bin/shardgate")).isExecutable();
        assertThat(home.resolve("lib/shardgate-router-core-" + version() + "-all.jar"))
                .isRegularFile();
        assertThat(home.resolve("conf/shardgate.yaml")).isRegularFile();
        assertThat(home.resolve("README.md")).isRegularFile();
        assertThat(home.resolve("docs/configuration.md")).isRegularFile();
        assertThat(home.resolve("sharding/README.md")).isRegularFile();
        assertThat(home.resolve("docs/troubleshooting.md")).isRegularFile();
        assertThat(home.resolve("mvnw")).doesNotExist();
    }

    @Test
    void linksBetweenTheShippedDocsResolveInsideTheTarball() throws Exception {
        List<String> broken = new ArrayList<>();
        try (var pages = Files.list(home.resolve("docs"))) {
            for (Path page : pages.filter(p -> p.toString().endsWith(".md")).toList()) {
                broken.addAll(DocsLinksTest.brokenLinks(page));
            }
        }
        assertThat(broken).isEmpty();
    }

    @Test
    void printsTheBuiltVersion() throws Exception {
        Run run = shardgate(List.of("--version"));
        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.stdout().strip()).isEqualTo("shardgate " + version());
    }

    @Test
    void printsUsageWithTheRunCommand() throws Exception {
        Run run = shardgate(List.of("--help"));
        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.stdout()).startsWith("Usage: shardgate").contains("run ").contains("--version");
    }

    @Test
    void refusesAConfigurationWithAnUnknownKeyNamingIt() throws Exception {
        Path bad = unpacked.resolve("bad.yaml");
        Files.writeString(bad, Files.readString(home.resolve("conf/shardgate.yaml")) + "\nshards: 4\n");
        Run run = shardgate(List.of("run", "--config", bad.toString()));
        assertThat(run.exit()).as(run.toString()).isEqualTo(2);
        assertThat(run.stderr()).contains("shards: unknown key (known: [admin, cache, hostgroups,");
    }

    @Test
    void demoExplainsThatItNeedsASourceCheckout() throws Exception {
        Run run = shardgate(List.of("demo"));
        assertThat(run.exit()).as(run.toString()).isEqualTo(2);
        assertThat(run.stderr()).contains("source checkout");
    }

    @Test
    void servesQueriesWithTheShippedSampleConfig() throws Exception {
        try (MariaDbServer shard = MariaDbServer.builder()
                .database("shop")
                .user("shardgate", "sg-secret")
                .innodbBufferPoolSize("64M")
                .start()) {
            // The sample as shipped, with its two writers on this one server and free ports.
            ObjectNode config = (ObjectNode)
                    YAML.readTree(home.resolve("conf/shardgate.yaml").toFile());
            int port = freePort();
            ObjectNode server = (ObjectNode) config.get("server");
            server.put("port", port).put("admin_port", freePort()).put("http_port", freePort());
            config.withArray("hostgroups").forEach(h -> ((ObjectNode) h).put("writer", shard.address()));
            Path file = unpacked.resolve("local.yaml");
            YAML.writeValue(file.toFile(), config);

            Path log = unpacked.resolve("router.log");
            Process router = launcher(List.of("run", "--config", file.toString()))
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            try {
                try (Connection c = connectWhenListening(router, port, log);
                        Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT DATABASE(), 6 * 7")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("shop");
                    assertThat(rs.getInt(2)).isEqualTo(42);
                }
                // the launcher sized the JVM from the file; the test's JAVA_OPTS heap replaced the computed one
                List<String> jvm = List.of(router.toHandle().info().arguments().orElseThrow());
                assertThat(jvm)
                        .contains("-XX:+UseSerialGC", "-Xmx256m")
                        .anyMatch(a -> a.matches("-XX:MaxDirectMemorySize=\\d+m"))
                        .noneMatch(a -> a.startsWith("-Xms"));
            } finally {
                router.destroy();
                if (!router.waitFor(30, TimeUnit.SECONDS)) {
                    router.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            // The relative data_dir of the sample resolves against the working directory.
            assertThat(unpacked.resolve("data")).isDirectory();
        }
    }

    private static Connection connectWhenListening(Process router, int port, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(COMMAND_TIMEOUT_SECONDS);
        while (true) {
            try {
                return Driver.MARIADB.connect(port, "shop", "app", "app-secret");
            } catch (SQLException e) {
                if (!router.isAlive() || System.nanoTime() > deadline) {
                    throw new AssertionError(
                            "router from the tarball did not serve on port " + port + "; its log:\n"
                                    + Files.readString(log),
                            e);
                }
                Thread.sleep(200);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static Run shardgate(List<String> args) throws Exception {
        return run(launcher(args));
    }

    /** The launcher with the test's JDK as JAVA_HOME, run from the unpack directory. */
    private static ProcessBuilder launcher(List<String> args) {
        List<String> command =
                new ArrayList<>(List.of(home.resolve("bin/shardgate").toString()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(unpacked.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("JAVA_OPTS", "-Xmx256m");
        return builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    }

    private static Run run(Path dir, List<String> command) throws Exception {
        return run(new ProcessBuilder(command).directory(dir.toFile()));
    }

    private static Run run(ProcessBuilder builder) throws Exception {
        Path out = Files.createTempFile(unpacked, "cmd-", ".out");
        Path err = Files.createTempFile(unpacked, "cmd-", ".err");
        Process process =
                builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        int exit = process.isAlive() ? -1 : process.exitValue();
        return new Run(
                builder.command(),
                exit,
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    /** A finished command: exit code (-1 when it had to be killed) and its output. */
    private record Run(List<String> command, int exit, String stdout, String stderr) {
        @Override
        public String toString() {
            return String.join(" ", command) + " -> exit " + exit + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }
}
