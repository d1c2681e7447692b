package io.shardgate.router.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Statement timers per hostgroup and command: bounded series, histogram buckets, unknown ids. */
class StatementTimersTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final StatementTimers timers = new StatementTimers(registry);

    private Timer timer(String hostgroup, String command) {
        return registry.get("shardgate.statements")
                .tag("hostgroup", hostgroup)
                .tag("command", command)
                .timer();
    }

    @Test
    void recordsPerHostgroupAndCommandIntoFixedBuckets() {
        timers.hostgroup(10);
        timers.hostgroup(70_000); // beyond the dense ids: still its own series
        timers.record(10, false, TimeUnit.MICROSECONDS.toNanos(300), false);
        timers.record(10, false, TimeUnit.MILLISECONDS.toNanos(3), true);
        timers.record(10, true, TimeUnit.MILLISECONDS.toNanos(1), false);
        timers.record(70_000, false, 1_000, false);

        assertThat(timer("10", "COM_QUERY").count()).isEqualTo(2);
        assertThat(timer("10", "COM_STMT_EXECUTE").count()).isEqualTo(1);
        assertThat(timer("70000", "COM_QUERY").count()).isEqualTo(1);
        assertThat(registry.get("shardgate.statements.errors")
                        .tag("hostgroup", "10")
                        .tag("command", "COM_QUERY")
                        .counter()
                        .count())
                .isEqualTo(1);
        CountAtBucket[] buckets = timer("10", "COM_QUERY").takeSnapshot().histogramCounts();
        assertThat(buckets).hasSize(StatementTimers.BUCKETS.length);
        // 300 µs lands in the 0.5 ms bucket and above; 3 ms in the 5 ms bucket and above
        assertThat(count(buckets, 0.25)).isZero();
        assertThat(count(buckets, 0.5)).isEqualTo(1);
        assertThat(count(buckets, 2.5)).isEqualTo(1);
        assertThat(count(buckets, 5)).isEqualTo(2);
    }

    @Test
    void unknownHostgroupsCountUnderMinusOneAndCreateNoSeries() {
        int before = series();
        timers.record(99, false, 1_000, false);
        timers.record(-1, true, 1_000, false);
        assertThat(series()).isEqualTo(before);
        assertThat(timer("-1", "COM_QUERY").count()).isEqualTo(1);
        assertThat(timer("-1", "COM_STMT_EXECUTE").count()).isEqualTo(1);
        timers.hostgroup(10);
        timers.hostgroup(10);
        assertThat(series()).as("four meters per hostgroup, once").isEqualTo(before + 4);
    }

    private int series() {
        return registry.find("shardgate.statements").timers().size()
                + registry.find("shardgate.statements.errors").counters().size();
    }

    private static double count(CountAtBucket[] buckets, double millis) {
        for (CountAtBucket b : buckets) {
            if (b.bucket(TimeUnit.MILLISECONDS) == millis) {
                return b.count();
            }
        }
        throw new AssertionError("no bucket " + millis + " ms");
    }
}
