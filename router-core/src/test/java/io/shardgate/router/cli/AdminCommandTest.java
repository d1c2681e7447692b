package io.shardgate.router.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.Main;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code shardgate admin} against a real router (embedded ZooKeeper; backends at a closed port). */
class AdminCommandTest {
    @TempDir
    Path dir;

    private Shardgate router;
    private int closedPort;

    /** What one invocation printed and returned. */
    private record Run(int exit, String out, String err) {}

    @BeforeEach
    void start() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        router =
                Shardgate.start(RouterConfig.parse("server: {port: 0, http_port: 0, tls: {enabled: false}, data_dir: \""
                        + dir.resolve("router") + "\"}\n" + rules(10)));
    }

    @AfterEach
    void stop() {
        router.close();
    }

    private String rules(int placeHostgroup) {
        return String.join(
                "\n",
                "users: [{name: app, password: pw}]",
                "hostgroups:",
                "  - {id: 10, writer: \"127.0.0.1:" + closedPort + "\", user: sg}",
                "  - {id: 20, writer: \"127.0.0.1:" + closedPort + "\", user: sg}",
                "schemas:",
                "  - {name: shop, default_hostgroup: 10, tables: [{name: place, strategy: table, hostgroup: "
                        + placeHostgroup + "}]}",
                "");
    }

    private Run admin(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        String[] all = new String[args.length + 1];
        all[0] = "admin";
        System.arraycopy(args, 0, all, 1, args.length);
        int exit = cli.execute(all);
        return new Run(exit, out.toString(), err.toString());
    }

    private String url() {
        return "http://127.0.0.1:" + router.httpPort();
    }

    @Test
    void validatesAppliesShowsAndReappliesThroughTheHttpApi() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.yaml"), rules(30));
        Run invalid = admin("validate", "--config", bad.toString());
        assertThat(invalid.exit()).isEqualTo(2);
        assertThat(invalid.err()).contains("unknown hostgroup 30");

        Path moved = Files.writeString(dir.resolve("moved.yaml"), rules(20));
        assertThat(admin("validate", "--config", moved.toString()).out()).contains("is valid: 2 hostgroups, 1 users");
        Run applied = admin("apply", "--config", moved.toString(), "--url", url());
        assertThat(applied.exit()).as(applied.err()).isZero();
        assertThat(applied.out()).contains("published version 2");
        assertThat(router.ruleStore().awaitVersion(2, java.time.Duration.ofSeconds(30)))
                .isPresent();
        assertThat(router.configuration().version()).isEqualTo(2);

        Run shown = admin("show", "--url", url());
        assertThat(shown.exit()).isZero();
        assertThat(shown.out()).contains("# cluster configuration version 2", "hostgroups:", "password_hash:");
        assertThat(shown.out()).doesNotContain("password: pw");
        Path again = Files.writeString(dir.resolve("shown.yaml"), shown.out());
        Run reapplied = admin("apply", "--config", again.toString(), "--url", url(), "--based-on", "2");
        assertThat(reapplied.exit()).as(reapplied.err()).isZero();
        assertThat(reapplied.out()).contains("published version 3");

        Run conflict = admin("apply", "--config", again.toString(), "--url", url(), "--based-on", "1");
        assertThat(conflict.exit()).isEqualTo(1);
        assertThat(conflict.err()).contains("409");

        Run refused = admin("apply", "--config", bad.toString(), "--url", url());
        assertThat(refused.exit()).isEqualTo(2);
    }

    @Test
    void statusThroughHttpAndZooKeeperNamesTheLiveRouter() {
        Run http = admin("status", "--url", url());
        assertThat(http.exit()).as(http.err()).isZero();
        assertThat(http.out()).contains("config version: 1", ":" + router.mysqlPort());

        Run zk = admin("status", "--zookeeper", router.zooKeeperConnectString());
        assertThat(zk.exit()).as(zk.err()).isZero();
        assertThat(zk.out()).contains("config version: 1", ":" + router.mysqlPort());

        Run unreachable = admin("status", "--url", "http://127.0.0.1:" + closedPort);
        assertThat(unreachable.exit()).isNotZero();
    }

    @Test
    void aDeadHttpEndpointIsNamedWithWhatToTry() {
        for (String command : new String[] {"status", "show"}) {
            Run run = admin(command, "--url", "http://127.0.0.1:" + closedPort);
            assertThat(run.exit()).isEqualTo(1);
            assertThat(run.err())
                    .startsWith("shardgate: cannot reach a router's HTTP API at http://127.0.0.1:" + closedPort + " (")
                    .contains("--url", "--zookeeper")
                    .doesNotContain("null")
                    .doesNotContain("\tat ");
        }
    }

    @Test
    void aDeadZooKeeperIsNamedQuietly() {
        try (CapturedEvents events = CapturedEvents.start()) {
            Run run = admin("status", "--zookeeper", "127.0.0.1:" + closedPort, "--connect-timeout", "2");
            assertThat(run.exit()).isEqualTo(1);
            assertThat(run.err())
                    .startsWith("shardgate: ZooKeeper 127.0.0.1:" + closedPort + " is not reachable")
                    .doesNotContain("null");
            assertThat(events.from("org.apache.zookeeper", "org.apache.curator"))
                    .as("the ZooKeeper client's reconnect lines")
                    .isEmpty();
        } finally {
            CapturedEvents.restoreZooKeeperLevels();
        }
    }

    @Test
    void talkingToZooKeeperDirectlyPrintsOnlyTheAnswer() {
        try (CapturedEvents events = CapturedEvents.start()) {
            Run run = admin("show", "--zookeeper", router.zooKeeperConnectString());
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("# cluster configuration version 1");
            assertThat(events.from("org.apache.zookeeper", "org.apache.curator", "io.shardgate.admin.store"))
                    .isEmpty();
        } finally {
            CapturedEvents.restoreZooKeeperLevels();
        }
    }

    @Test
    void movesAreStartedListedAndShownThroughTheHttpApi() {
        Run none = admin("move", "list", "--url", url());
        assertThat(none.exit()).as(none.err()).isZero();
        assertThat(none.out()).isEmpty();

        Run refused = admin(
                "move",
                "start",
                "--url",
                url(),
                "--schema",
                "shop",
                "--table",
                "place",
                "--buckets",
                "0-1",
                "--to",
                "20");
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("400").contains("not sharded by hash");

        Run unknown = admin("move", "show", "--url", url(), "m-0000000009");
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.err()).contains("404 no move m-0000000009");

        Run usage = admin("move", "start", "--url", url(), "--schema", "shop");
        assertThat(usage.exit()).isEqualTo(2);
        assertThat(usage.err()).contains("Missing required options");
    }
}
