package io.shardgate.router.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.router.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code shardgate print-jvm-options}: what bin/shardgate starts {@code run} with. */
class PrintJvmOptionsCommandTest {
    @TempDir
    Path dir;

    @Test
    void printsTheSizesOfTheFileOnOneLineAndIgnoresRunsOtherOptions() throws Exception {
        Path file = Files.writeString(dir.resolve("shardgate.yaml"), """
                server: {max_connections: 1000}
                users: [{name: app, password: pw}]
                hostgroups: [{id: 10, writer: "db:3306", user: sg, pool: {max_connections: 20}}]
                """);
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            exit = Main.commandLine().execute("print-jvm-options", "--config", file.toString(), "--publish-config");
        } finally {
            System.setOut(out);
        }
        assertThat(exit).isZero();
        String line = printed.toString(StandardCharsets.UTF_8).strip();
        assertThat(line).doesNotContain("\n").contains("-XX:+UseSerialGC", "-Xms", "-XX:MaxDirectMemorySize=");
        // 1,000 sessions and 20 backends under the default 256 MiB merge bound
        assertThat(line).containsPattern("-Xmx3[0-9][0-9]m");
    }

    @Test
    void aFileTheRouterWouldRefuseExitsTwoAndForTheLauncherSaysNothing() throws Exception {
        Path file = Files.writeString(dir.resolve("bad.yaml"), "server: {max_conections: 5}\n");
        PrintStream err = System.err;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
            assertThat(Main.commandLine().execute("print-jvm-options", "--config", file.toString()))
                    .isEqualTo(2);
            assertThat(printed.toString(StandardCharsets.UTF_8)).contains("max_conections");
            printed.reset();
            // bin/shardgate then runs `run`, which names the problems: they are not printed twice
            assertThat(Main.commandLine().execute("print-jvm-options", "--launcher", "--config", file.toString()))
                    .isEqualTo(2);
            assertThat(printed.toString(StandardCharsets.UTF_8)).isEmpty();
        } finally {
            System.setErr(err);
        }
    }

    @Test
    void theHeapOverrideTakesTheSizesXmxTakes() {
        assertThat(PrintJvmOptionsCommand.heapBytes(null)).isZero();
        assertThat(PrintJvmOptionsCommand.heapBytes("")).isZero();
        assertThat(PrintJvmOptionsCommand.heapBytes("512m")).isEqualTo(512L << 20);
        assertThat(PrintJvmOptionsCommand.heapBytes("2G")).isEqualTo(2L << 30);
        assertThat(PrintJvmOptionsCommand.heapBytes("65536k")).isEqualTo(64L << 20);
        assertThatThrownBy(() -> PrintJvmOptionsCommand.heapBytes("lots"))
                .hasMessageContaining("SHARDGATE_HEAP must be a size like 512m");
        assertThatThrownBy(() -> PrintJvmOptionsCommand.heapBytes("1m")).hasMessageContaining("at least 16m");
    }
}
