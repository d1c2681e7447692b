package io.shardgate.it.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Repository;
import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * docs/tutorial.md shows what the demo answers. Each of its {@code mariadb} commands through the
 * router whose answer does not depend on the session (not the generated snowflake id, a shard's own
 * port or share, the pools) runs again with the mariadb CLI against a fresh demo, and prints what
 * the page shows (an error: what it prints on stderr).
 */
class TutorialIT {
    /** A code block of the page: {@code $ mariadb -h127.0.0.1 -P6033 -uUSER -pPASSWORD DB -e 'SQL'}, then its output. */
    private static final Pattern EXAMPLE = Pattern.compile(
            "(?ms)^```\\n\\$ mariadb -h127\\.0\\.0\\.1 -P6033 -u(\\S+) -p(\\S+) (\\w+) -e (['\"])(.*?)\\4\\n(.*?)\\n```$");
    /** A snowflake id: the router generates it from the clock, so it differs from run to run. */
    private static final Pattern GENERATED_ID = Pattern.compile("\\d{15,}");

    @TempDir
    static Path dataDir;

    private static RunningDemo demo;

    @BeforeAll
    static void start() throws Exception {
        PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        DemoCluster command = new DemoCluster(out);
        new CommandLine(command)
                .parseArgs("--port", "0", "--admin-port", "0", "--http-port", "0", "--data-dir", dataDir.toString());
        demo = command.start();
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
    }

    private record Example(String user, String password, String database, String sql, String output) {}

    private static List<Example> examples() throws Exception {
        List<Example> examples = new ArrayList<>();
        Matcher m = EXAMPLE.matcher(Files.readString(Repository.file("docs/tutorial.md")));
        while (m.find()) {
            examples.add(new Example(m.group(1), m.group(2), m.group(3), m.group(5), m.group(6)));
        }
        return examples;
    }

    @Test
    void theRoutersAnswersOnThePageAreTheDemosAnswers() throws Exception {
        Path mariadb = ExternalTool.MARIADB_CLI.require();
        List<Example> examples = examples();
        List<String> checked = new ArrayList<>();
        for (Example example : examples) {
            if (GENERATED_ID.matcher(example.sql() + example.output()).find()) {
                continue;
            }
            ToolRun run = ToolRun.run(
                    Duration.ofMinutes(1),
                    List.of(
                            mariadb.toString(),
                            "-h127.0.0.1",
                            "-P" + demo.router().mysqlPort(),
                            "-u" + example.user(),
                            "-p" + example.password(),
                            "-t", // tables, as the CLI prints them on a terminal
                            example.database(),
                            "-e",
                            example.sql()));
            boolean error = example.output().lines().anyMatch(l -> l.startsWith("ERROR "));
            assertThat(run.exitCode() != 0).as(run.toString()).isEqualTo(error);
            assertThat((error ? run.stderr() : run.stdout()).strip())
                    .as(example.sql())
                    .isEqualTo(example.output().strip());
            checked.add(example.sql());
        }
        assertThat(examples).as("router examples on the page").hasSizeGreaterThanOrEqualTo(11);
        assertThat(checked).as("examples compared with the demo").hasSizeGreaterThanOrEqualTo(8);
    }
}
