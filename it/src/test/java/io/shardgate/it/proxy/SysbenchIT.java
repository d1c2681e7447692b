package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * sysbench {@code oltp_read_write} through Shardgate, in text mode ({@code --db-ps-mode=disable})
 * and with sysbench's default server-side prepared statements: one client thread finishes with zero
 * errors of any kind; eight threads finish every transaction with no fatal error and no reconnect
 * (InnoDB may pick deadlock victims among concurrent sysbench threads, directly as well, which
 * sysbench retries and counts as "ignored errors"). The workload is a fixed number of transactions,
 * never a duration. Skipped only when sysbench is not installed; CI installs it.
 */
@ExtendWith(ProxyClusterExtension.class)
class SysbenchIT {

    static final int TABLES = 2;
    static final int TABLE_SIZE = 10_000;
    static final int TRANSACTIONS = 1_000;
    static final Pattern TRANSACTIONS_LINE = Pattern.compile("transactions:\\s+(\\d+)");
    static final Pattern IGNORED_ERRORS_LINE = Pattern.compile("ignored errors:\\s+(\\d+)");
    static final Pattern RECONNECTS_LINE = Pattern.compile("reconnects:\\s+(\\d+)");

    private static ProxyCluster cluster;
    private static Path sysbench;

    @BeforeAll
    static void prepareThroughTheRouter(ProxyCluster shared) throws Exception {
        cluster = shared;
        sysbench = ExternalTool.SYSBENCH.require();
        ToolRun cleanup = sysbench("oltp_read_write", "cleanup");
        assertThat(cleanup.exitCode()).as("%s", cleanup).isZero();
        ToolRun prepare = sysbench("oltp_read_write", "prepare");
        assertThat(prepare.exitCode()).as("%s", prepare).isZero();
        assertThat(prepare.stdout()).contains("Inserting " + TABLE_SIZE + " records into 'sbtest" + TABLES + "'");
    }

    @Test
    void oltpReadWriteInTextModeHasNoErrors() throws Exception {
        assertNoErrors(sysbench("oltp_read_write", "run", "--threads=1", "--db-ps-mode=disable"));
    }

    @Test
    void oltpReadWriteWithPreparedStatementsHasNoErrors() throws Exception {
        assertNoErrors(sysbench("oltp_read_write", "run", "--threads=1"));
    }

    @Test
    void concurrentOltpReadWriteInTextModeCompletes() throws Exception {
        assertCompleted(sysbench("oltp_read_write", "run", "--threads=8", "--db-ps-mode=disable"));
    }

    @Test
    void concurrentOltpReadWriteWithPreparedStatementsCompletes() throws Exception {
        assertCompleted(sysbench("oltp_read_write", "run", "--threads=8"));
    }

    private static void assertNoErrors(ToolRun run) {
        assertCompleted(run);
        assertThat(number(IGNORED_ERRORS_LINE, run)).as("%s", run).isZero();
    }

    private static void assertCompleted(ToolRun run) {
        assertThat(run.exitCode()).as("%s", run).isZero();
        assertThat(run.stdout() + run.stderr()).as("%s", run).doesNotContain("FATAL");
        assertThat(number(TRANSACTIONS_LINE, run)).as("%s", run).isEqualTo(TRANSACTIONS);
        assertThat(number(RECONNECTS_LINE, run)).as("%s", run).isZero();
    }

    private static long number(Pattern pattern, ToolRun run) {
        Matcher matcher = pattern.matcher(run.stdout());
        assertThat(matcher.find()).as("'%s' in the output of %s", pattern, run).isTrue();
        return Long.parseLong(matcher.group(1));
    }

    private static ToolRun sysbench(String test, String command, String... options) throws Exception {
        List<String> line = new ArrayList<>(List.of(
                sysbench.toString(),
                test,
                "--db-driver=mysql",
                "--mysql-host=127.0.0.1",
                "--mysql-port=" + cluster.routerPort(),
                "--mysql-user=" + ProxyCluster.APP_USER,
                "--mysql-password=" + ProxyCluster.APP_PASSWORD,
                "--mysql-db=" + ProxyCluster.SCHEMA,
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
