package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sysbench {@code oltp_read_write} with eight tables spread over two shards by the {@code table}
 * strategy (sbtest1, 3, 5, 7 on hostgroup 10; 2, 4, 6, 8 on 20), as in the ProxySQL sharding
 * experiment: prepared through the router, run in text mode ({@code --db-ps-mode=disable}) and with
 * server-side prepared statements, zero errors of any kind; then each shard is asked directly that
 * every table is where the rule names, with all its rows, and absent from the other shard. The
 * workload is a fixed number of transactions, never a duration. Skipped only when sysbench is not
 * installed; CI installs it.
 */
class ShardedSysbenchIT {
    static final int TABLES = 8;
    static final int TABLE_SIZE = 1_000;
    static final int TRANSACTIONS = 300;
    static final Pattern TRANSACTIONS_LINE = Pattern.compile("transactions:\\s+(\\d+)");
    static final Pattern IGNORED_ERRORS_LINE = Pattern.compile("ignored errors:\\s+(\\d+)");
    static final Pattern RECONNECTS_LINE = Pattern.compile("reconnects:\\s+(\\d+)");

    @TempDir
    static Path dataDir;

    private static Path sysbench;
    private static ShardedCluster cluster;

    /** The rule: odd tables on hostgroup 10, even ones on 20. */
    static int hostgroupOf(int table) {
        return table % 2 == 1 ? 10 : 20;
    }

    @BeforeAll
    static void start() throws Exception {
        sysbench = ExternalTool.SYSBENCH.require();
        List<String> tables = new ArrayList<>();
        for (int t = 1; t <= TABLES; t++) {
            tables.add("{name: sbtest" + t + ", strategy: table, hostgroup: " + hostgroupOf(t) + "}");
        }
        cluster = new ShardedCluster(dataDir, "sbtest", 2, tables, List.of());
        ToolRun prepare = sysbench("prepare");
        assertThat(prepare.exitCode()).as("%s", prepare).isZero();
        assertThat(prepare.stdout()).contains("Inserting " + TABLE_SIZE + " records into 'sbtest" + TABLES + "'");
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void oltpReadWriteInTextModeHasNoErrorsAndRowsStayOnTheirShards() throws Exception {
        assertNoErrors(sysbench("run", "--threads=1", "--db-ps-mode=disable"));
        assertTablesOnTheirShards();
    }

    @Test
    void oltpReadWriteWithPreparedStatementsHasNoErrorsAndRowsStayOnTheirShards() throws Exception {
        assertNoErrors(sysbench("run", "--threads=1", "--db-ps-mode=auto"));
        assertTablesOnTheirShards();
    }

    /** Each table, asked of each shard directly: all its rows on the rule's shard, absent from the other. */
    private static void assertTablesOnTheirShards() throws SQLException {
        for (int t = 1; t <= TABLES; t++) {
            for (int hg : List.of(10, 20)) {
                try (Connection c = cluster.direct(hg);
                        Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SHOW TABLES LIKE 'sbtest" + t + "'")) {
                    boolean present = rs.next();
                    assertThat(present)
                            .as("sbtest%d on hostgroup %d (the rule says %d)", t, hg, hostgroupOf(t))
                            .isEqualTo(hg == hostgroupOf(t));
                    if (present) {
                        try (ResultSet count = s.executeQuery("SELECT COUNT(*), MIN(id), MAX(id) FROM sbtest" + t)) {
                            count.next();
                            // oltp_read_write deletes a row and inserts it again with the same id
                            assertThat(count.getLong(1))
                                    .as("rows of sbtest%d", t)
                                    .isEqualTo(TABLE_SIZE);
                            assertThat(count.getLong(2)).isEqualTo(1);
                            assertThat(count.getLong(3)).isEqualTo(TABLE_SIZE);
                        }
                    }
                }
            }
        }
    }

    private static void assertNoErrors(ToolRun run) {
        assertThat(run.exitCode()).as("%s", run).isZero();
        assertThat(run.stdout() + run.stderr()).as("%s", run).doesNotContain("FATAL");
        assertThat(number(TRANSACTIONS_LINE, run)).as("%s", run).isEqualTo(TRANSACTIONS);
        assertThat(number(IGNORED_ERRORS_LINE, run)).as("%s", run).isZero();
        assertThat(number(RECONNECTS_LINE, run)).as("%s", run).isZero();
    }

    private static long number(Pattern pattern, ToolRun run) {
        Matcher matcher = pattern.matcher(run.stdout());
        assertThat(matcher.find()).as("'%s' in the output of %s", pattern, run).isTrue();
        return Long.parseLong(matcher.group(1));
    }

    private static ToolRun sysbench(String command, String... options) throws Exception {
        List<String> line = new ArrayList<>(List.of(
                sysbench.toString(),
                "oltp_read_write",
                "--db-driver=mysql",
                "--mysql-host=127.0.0.1",
                "--mysql-port=" + cluster.router.mysqlPort(),
                "--mysql-user=" + ShardedCluster.USER,
                "--mysql-password=" + ShardedCluster.PASSWORD,
                "--mysql-db=sbtest",
                "--tables=" + TABLES,
                "--table-size=" + TABLE_SIZE,
                "--events=" + TRANSACTIONS,
                "--time=0",
                "--rand-seed=42"));
        line.add(command);
        line.addAll(List.of(options));
        return ToolRun.run(Duration.ofMinutes(5), line);
    }
}
