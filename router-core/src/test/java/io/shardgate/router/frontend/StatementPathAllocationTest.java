package io.shardgate.router.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.frontend.StatementPathAllocation.Scenario;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The allocation guard of the statement path (issue 21): bytes, not time. {@link
 * StatementPathAllocation} counts what a client session allocates for one statement on a plan-cache
 * hit, from the decoded packet to the bytes written towards the backend; each test runs it for one
 * statement in a JVM of its own without escape analysis ({@code -XX:-DoEscapeAnalysis}), where the
 * count is exact and the same on every run (with escape analysis it is lower but moves by tens of
 * bytes between runs), and fails when it exceeds the budget.
 *
 * <p>Each budget is the figure measured when it was set plus 8 B, less than the smallest object
 * (16 B), so one more String, array, lambda or record per statement fails the build. Lower a budget
 * when the path allocates less. Measured 2026-11-27 (JDK 17.0.15, compressed oops, Netty 4.2.18,
 * its default adaptive allocator): see each constant; another JDK lays objects out differently.
 *
 * <p>What a point select still allocates (JFR's allocation samples of the measurement): the SQL text
 * (String and its bytes), the decoded {@code Packet} and the retained slice of the read buffer (the
 * adaptive allocator does not recycle slices), the digest (Digest, its normalized text, the literals
 * and their list, the key as a boxed Long), the plan's Values, StatementFacts and Decision.Single,
 * the continuations of the lease (the command's send and acquire callbacks, the borrow callback)
 * and the pool's promise of the borrow.
 */
class StatementPathAllocationTest {
    /** Measured 735 B (887 B before the iterators, the cache's rerun lambda and the range sets went). */
    private static final long POINT_SELECT_BUDGET = 743;
    /** Measured 822 B (1550 B when the targets were collected through a TreeSet and a stream). */
    private static final long RANGE_SELECT_BUDGET = 830;
    /** Measured 782 B (934 B before). */
    private static final long UPDATE_BY_KEY_BUDGET = 790;
    /** Measured 679 B (831 B before). */
    private static final long UNSHARDED_POINT_SELECT_BUDGET = 687;

    private static final Pattern RESULT = Pattern.compile("allocated=(\\d+)");

    @Test
    void aShardedPointSelect() throws Exception {
        assertWithin(Scenario.POINT_SELECT, POINT_SELECT_BUDGET);
    }

    @Test
    void aShardedRangeSelect() throws Exception {
        assertWithin(Scenario.RANGE_SELECT, RANGE_SELECT_BUDGET);
    }

    @Test
    void anAutocommitUpdateByKey() throws Exception {
        assertWithin(Scenario.UPDATE_BY_KEY, UPDATE_BY_KEY_BUDGET);
    }

    @Test
    void aPointSelectOnOneHostgroupUnsharded() throws Exception {
        assertWithin(Scenario.UNSHARDED_POINT_SELECT, UNSHARDED_POINT_SELECT_BUDGET);
    }

    private static void assertWithin(Scenario scenario, long budget) throws IOException, InterruptedException {
        String output = measure(scenario);
        System.out.println(output); // the build's log: the figure, and any LEAK: report of the child
        Matcher m = RESULT.matcher(output);
        assertThat(m.find()).as("the measurement's output:%n%s", output).isTrue();
        long allocated = Long.parseLong(m.group(1));
        assertThat(allocated)
                .as("bytes allocated per statement of %s (budget %d)", scenario, budget)
                .isLessThanOrEqualTo(budget);
    }

    /** Runs {@link StatementPathAllocation} for {@code scenario} in a JVM without escape analysis. */
    private static String measure(Scenario scenario) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-XX:-DoEscapeAnalysis");
        command.add("-Xmx512m");
        String leaks = System.getProperty("io.netty.leakDetection.level");
        if (leaks != null) {
            command.add("-Dio.netty.leakDetection.level=" + leaks);
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(StatementPathAllocation.class.getName());
        command.add(scenario.name());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        // a guard against a hung child only: it ends in seconds
        assertThat(process.waitFor(10, TimeUnit.MINUTES)).isTrue();
        String output = new String(out, StandardCharsets.UTF_8);
        assertThat(process.exitValue())
                .as("the measurement failed:%n%s", output)
                .isZero();
        return output;
    }
}
