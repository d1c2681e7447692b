package io.shardgate.router;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code shardgate run}'s options as the router receives them. */
class MainTest {
    @TempDir
    Path dir;

    private Main.Run run(String... args) {
        CommandLine.ParseResult parsed = new CommandLine(new Main()).parseArgs(args);
        return (Main.Run) parsed.subcommand().commandSpec().userObject();
    }

    @Test
    void publishConfigMakesTheStartPublishTheFile() throws Exception {
        Path file = Files.writeString(
                dir.resolve("shardgate.yaml"),
                "users: [{name: app, password: pw}]\nhostgroups: [{id: 10, writer: \"db:3306\", user: sg}]\n");
        assertThat(run("run", "--config", file.toString())
                        .configuration()
                        .zookeeper()
                        .publishOnStart())
                .isFalse();
        assertThat(run("run", "--config", file.toString(), "--publish-config")
                        .configuration()
                        .zookeeper()
                        .publishOnStart())
                .isTrue();
    }

    @Test
    void runsHelpNamesThePublishOption() {
        CommandLine cli = new CommandLine(new Main());
        String usage = cli.getSubcommands().get("run").getUsageMessage();
        assertThat(usage).contains("--publish-config").contains("zookeeper.publish_on_start");
    }

    @Test
    void anErrorWithoutAMessageIsNeverPrintedAsNull() {
        assertThat(Main.describe(new java.net.ConnectException())).isEqualTo("java.net.ConnectException (no message)");
        assertThat(Main.describe(new IllegalStateException(null, new java.io.IOException("disk full"))))
                .isEqualTo("disk full");
        assertThat(Main.describe(new IllegalStateException("outer", new java.io.IOException("inner"))))
                .isEqualTo("outer");
    }
}
