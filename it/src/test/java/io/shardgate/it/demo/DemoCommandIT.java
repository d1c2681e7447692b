package io.shardgate.it.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.Driver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bin/shardgate demo} as a command: with {@code --exit-after-start} it starts the shards it
 * is asked for, prints its banner, and stops them again (exit 0); a shard count outside 2..4 is a
 * usage error (exit 2) before anything starts.
 */
class DemoCommandIT {
    private static final Pattern SHARD = Pattern.compile("hostgroup (\\d+)  MariaDB 127\\.0\\.0\\.1:(\\d+)");

    @TempDir
    Path dataDir;

    @Test
    void startsTwoShardsPrintsTheBannerAndStopsThemAtExit() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        int exit = new CommandLine(new DemoCluster(new PrintStream(printed, true, StandardCharsets.UTF_8)))
                .execute(
                        "--shards",
                        "2",
                        "--port",
                        "0",
                        "--admin-port",
                        "0",
                        "--http-port",
                        "0",
                        "--data-dir",
                        dataDir.toString(),
                        "--exit-after-start");
        String banner = printed.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(banner).isZero();
        assertThat(banner)
                .contains("Shardgate demo is running: 2 MariaDB shards behind one router.")
                .contains("EXPLAIN SHARDGATE")
                .contains("SELECT * FROM runtime_servers");
        Matcher shard = SHARD.matcher(banner);
        List<Integer> ports =
                shard.results().map(m -> Integer.parseInt(m.group(2))).toList();
        assertThat(ports).hasSize(2);
        for (int port : ports) {
            assertThatThrownBy(() -> Driver.MARIADB.connect(
                            port, DemoCluster.SCHEMA, DemoCluster.BACKEND_USER, DemoCluster.BACKEND_PASSWORD))
                    .as("shard on port %d stopped with the demo", port)
                    .isInstanceOf(SQLException.class);
        }
    }

    @Test
    void aShardCountOutsideTwoToFourIsAUsageError() {
        StringWriter err = new StringWriter();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = new CommandLine(new DemoCluster(new PrintStream(out, true, StandardCharsets.UTF_8)))
                .setErr(new PrintWriter(err, true))
                .execute("--shards", "7", "--data-dir", dataDir.toString());
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--shards must be 2, 3 or 4, not 7");
        assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("Starting");
    }
}
