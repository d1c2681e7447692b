package io.shardgate.it.mtr;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.mtr.MtrResults.Outcome;
import io.shardgate.it.server.MariaDbBinaries;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 23: MariaDB's own {@code mysql-test-run} {@code main} suite, a chosen subset of it
 * ({@link MtrTestList}), run with {@code --extern} over TCP directly against a MariaDB this test
 * starts, then through Shardgate (one hostgroup, no sharding rules) with multiplexing on and off.
 * Every test that passes directly must pass through the router, except the known router
 * differences, which must still fail in one mode at least (a fixed one must leave the list). Both
 * summaries are printed.
 *
 * <p>The server is the installed {@code mariadbd}, of the same version as the suite (Debian's
 * {@code mariadb-test} installs both), started with the options mtr gives its own servers that
 * tests rely on. CI runs the tests marked {@code ci}; {@code -Dmtr.tests=all} runs the whole list
 * (docs/compatibility.md has the command). Skipped (and listed) without {@code mariadb-test}.
 */
class MtrSubsetIT {
    private static final Logger LOG = LoggerFactory.getLogger(MtrSubsetIT.class);
    /** A test that runs longer is stopped by mtr and counts as failed (mtr's unit: minutes). */
    private static final int TESTCASE_TIMEOUT_MINUTES = 2;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 3, unit = TimeUnit.HOURS) // each mtr run has its own bound (below): the whole list runs long
    void subsetPassesThroughTheRouterAsDirectly() throws Exception {
        Path runner = ExternalTool.MARIADB_TEST.require();
        String selection = System.getProperty("mtr.tests", "ci");
        boolean all = selection.equals("all");
        List<String> tests = MtrTestList.selected(selection);
        Map<String, MtrTestList.KnownDifference> differences = MtrTestList.differences();
        assertThat(differences.keySet())
                .as("known differences are tests of the list")
                .isSubsetOf(MtrTestList.subset(true));

        Path files = Files.createDirectories(dir.resolve("files"));
        MariaDbServer.Builder builder = MariaDbServer.builder()
                .binaries(MariaDbBinaries.system()
                        .orElseThrow(() -> new IllegalStateException("mariadb-test is installed but no mariadbd")))
                .rootPassword("");
        mtrServerOptions(files).forEach(builder::arg);
        MtrRunArchive archive = MtrRunArchive.startingNow();
        try (MariaDbServer server = builder.start()) {
            setUp(server);
            MtrResults direct = run(runner, server.port(), files.resolve("direct"), tests, server, archive);
            List<String> report = new ArrayList<>();
            report.add("mtr main subset (" + tests.size() + " tests, " + (all ? "whole list" : selection) + ") against "
                    + server.binaries().mariadbd());
            report.add("  directly:                     " + direct.summary());
            List<MtrComparison> comparisons = new ArrayList<>();
            for (boolean multiplexing : new boolean[] {true, false}) {
                try (Shardgate router = Shardgate.start(RouterConfig.parse(routerYaml(server, multiplexing)))) {
                    MtrResults routed = run(
                            runner,
                            router.mysqlPort(),
                            files.resolve("multiplexing-" + multiplexing),
                            tests,
                            server,
                            archive);
                    MtrComparison comparison = MtrComparison.of(tests, direct, routed, differences);
                    comparisons.add(comparison);
                    report.add("  through Shardgate, multiplexing " + (multiplexing ? "on: " : "off:") + "  "
                            + routed.summary());
                    report.add("    pass directly, fail through the router: " + comparison.regressions());
                    report.add("    known router differences, still failing: " + comparison.known());
                    report.add("    known router differences that pass in this mode: " + comparison.fixed());
                    report.add(
                            "    intermittent differences that passed this time: " + comparison.passedIntermittent());
                    report.addAll(failureReports(tests, direct, routed));
                }
            }
            report.add("  not passing directly (left out of the comparison): "
                    + comparisons.get(0).failedDirectly());
            report.add("  the runner's output and the failed tests' logs are kept in " + archive.root());
            String text = String.join("\n", report);
            LOG.info("\n{}", text);
            System.out.println(text);

            assertThat(direct.with(Outcome.PASS).size())
                    .as("most of the list passes directly (else the server or the runner is broken):\n%s", text)
                    .isGreaterThanOrEqualTo(tests.size() * 9 / 10);
            for (MtrComparison comparison : comparisons) {
                assertThat(comparison.regressions()).as(text).isEmpty();
            }
            // a difference may show in one mode only; one that passes in both is fixed
            List<String> fixed = new ArrayList<>(comparisons.get(0).fixed());
            fixed.retainAll(comparisons.get(1).fixed());
            assertThat(fixed)
                    .as(
                            "known differences that pass with multiplexing on and off: remove them from %s\n%s",
                            MtrTestList.DIFFERENCES, text)
                    .isEmpty();
        }
    }

    /**
     * The runner's report (the diff, or what stopped it) of each test that passes directly and
     * not through the router, indented: a failure's cause must be readable from the build's log.
     */
    private static List<String> failureReports(List<String> tests, MtrResults direct, MtrResults routed) {
        List<String> lines = new ArrayList<>();
        for (String test : tests) {
            if (direct.outcome(test) == Outcome.PASS && routed.outcome(test) != Outcome.PASS) {
                lines.add("    " + test + " through the router (" + routed.outcome(test) + "):");
                routed.failure(test).lines().forEach(line -> lines.add("      | " + line));
            }
        }
        return lines;
    }

    /** Runs {@code mtr/setup.sql}: statements separated by lines holding only {@code //}. */
    private static void setUp(MariaDbServer server) throws Exception {
        String script;
        try (var in = MtrSubsetIT.class.getClassLoader().getResourceAsStream("mtr/setup.sql")) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (Connection c = DriverManager.getConnection(
                        "jdbc:mariadb://" + server.address() + "/mysql?user=root&password=");
                Statement s = c.createStatement()) {
            for (String sql : script.split("(?m)^//\\s*$")) {
                if (!sql.isBlank()) {
                    s.execute(sql);
                }
            }
        }
    }

    /**
     * The options of mtr's own servers ({@code include/default_mysqld.cnf} and the runner's
     * arguments) that the results of the {@code main} suite depend on: latin1, MyISAM by default,
     * small buffers, files only under the runner's directories.
     */
    private static List<String> mtrServerOptions(Path files) {
        return List.of(
                "--character-set-server=latin1",
                "--collation-server=latin1_swedish_ci",
                "--default-storage-engine=myisam",
                "--log-bin-trust-function-creators=1",
                "--local-infile",
                "--secure-file-priv=" + files,
                "--key-buffer-size=1M",
                "--sort-buffer-size=256K",
                "--max-heap-table-size=1M",
                "--use-stat-tables=preferably",
                "--histogram-type=json_hb",
                "--connect-timeout=60",
                "--open-files-limit=1024");
    }

    /** One hostgroup, no schemas (every database lives on the default hostgroup), mtr's user root. */
    private String routerYaml(MariaDbServer server, boolean multiplexing) throws Exception {
        Path data = Files.createDirectories(dir.resolve("router-" + multiplexing));
        return String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, admin_port: 0, http_port: 0, data_dir: \"" + data + "\"}",
                "users:",
                "  - {name: root, password: \"\", connection_admin: true}",
                "hostgroups:",
                "  - {id: 10, writer: \"" + server.address() + "\", user: root, password: \"\", pool: {multiplexing: "
                        + multiplexing + "}}",
                "");
    }

    /**
     * Runs {@code tests} against {@code port} (the server's or a router's). Before each test a
     * wrapper around {@code mariadb-test} calls {@code mtr.reset_for_test()} directly on the server
     * ({@code mtr/setup.sql}), as mtr's own server restart after a failure would: one failing test
     * must not fail the ones after it. The output is kept in {@code archive}.
     */
    private static MtrResults run(
            Path runner, int port, Path vardir, List<String> tests, MariaDbServer server, MtrRunArchive archive)
            throws Exception {
        Instant started = Instant.now().minusSeconds(1); // file times may be coarser than the clock
        Files.createDirectories(vardir);
        Path wrapper = vardir.resolve("mariadb-test");
        Files.writeString(
                wrapper,
                String.join(
                        "\n",
                        "#!/bin/sh",
                        ExternalTool.MARIADB_CLI.require() + " --no-defaults --protocol=tcp --host=127.0.0.1 --port="
                                + server.port() + " --user=root --execute='CALL mtr.reset_for_test()' mysql >&2"
                                + " || echo 'mtr.reset_for_test() failed' >&2",
                        "exec " + ToolRun.find("mariadb-test").orElseThrow() + " \"$@\"",
                        ""));
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(vardir.resolve("log"));
        List<String> command = new ArrayList<>(List.of(
                "env",
                "MYSQL_TEST=" + wrapper,
                "perl",
                runner.toString(),
                "--extern",
                "host=127.0.0.1",
                "--extern",
                "port=" + port,
                "--extern",
                "user=root",
                "--extern",
                "protocol=tcp",
                "--vardir=" + vardir,
                "--force",
                "--max-test-fail=0",
                "--retry=0",
                "--parallel=1",
                "--testcase-timeout=" + TESTCASE_TIMEOUT_MINUTES));
        command.addAll(tests);
        ToolRun run = ToolRun.run(
                Duration.ofMinutes((long) TESTCASE_TIMEOUT_MINUTES * tests.size() + 5),
                command,
                Path.of("/dev/null"),
                runner.getParent());
        Files.writeString(vardir.resolve("mtr-output.txt"), run.stdout() + "\n" + run.stderr());
        MtrResults results = MtrResults.parse(run.stdout() + "\n" + run.stderr());
        Path kept = archive.keep(
                vardir.getFileName().toString(), vardir, runner.getParent(), results.with(Outcome.FAIL), started);
        LOG.info(
                "mysql-test-run on port {} exited with {}; output in {}, kept in {}",
                port,
                run.exitCode(),
                vardir,
                kept);
        return results;
    }
}
