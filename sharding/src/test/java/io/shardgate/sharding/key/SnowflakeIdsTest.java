package io.shardgate.sharding.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SnowflakeIdsTest {
    private static final long T0 = SnowflakeIds.EPOCH_MILLIS + 1_000_000;

    @Test
    void idCarriesTimestampNodeAndSequence() {
        SnowflakeIds ids = new SnowflakeIds(1023, () -> T0);
        long[] two = ids.next(2);
        assertThat(SnowflakeIds.nodeOf(two[0])).isEqualTo(1023);
        assertThat(SnowflakeIds.millisOf(two[0])).isEqualTo(T0);
        assertThat(two[0]).isEqualTo((1_000_000L << 22) | (1023L << 12));
        assertThat(two[1]).isEqualTo(two[0] + 1);
        assertThat(two[0]).isPositive();
    }

    @Test
    void nodeIdsOutside0To1023AreRejected() {
        assertThatThrownBy(() -> new SnowflakeIds(1024)).hasMessageContaining("0..1023");
        assertThatThrownBy(() -> new SnowflakeIds(-1)).hasMessageContaining("0..1023");
        assertThat(SnowflakeIds.nodeOf(new SnowflakeIds(0).next(1)[0])).isZero();
    }

    @Test
    void differentNodesNeverCollideInTheSameMillisecond() {
        long[] a = new SnowflakeIds(1, () -> T0).next(100);
        long[] b = new SnowflakeIds(2, () -> T0).next(100);
        Set<Long> all = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            all.add(a[i]);
            all.add(b[i]);
        }
        assertThat(all).hasSize(200);
    }

    @Test
    void aBlockIsConsecutiveAndTheNextStartsAfterIt() {
        SnowflakeIds ids = new SnowflakeIds(7, () -> T0);
        long[] block = ids.next(100);
        for (int i = 1; i < block.length; i++) {
            assertThat(block[i]).isEqualTo(block[0] + i);
        }
        assertThat(ids.next(1)[0]).isEqualTo(block[99] + 1);
    }

    @Test
    void aFullMillisecondMovesToTheNextWithoutWaitingForTheClock() {
        SnowflakeIds ids = new SnowflakeIds(3, () -> T0); // the clock never advances
        long[] first = ids.next(4000);
        long[] second = ids.next(200); // does not fit the 96 left: starts the next millisecond
        assertThat(SnowflakeIds.millisOf(second[0])).isEqualTo(T0 + 1);
        assertThat(second[0]).isGreaterThan(first[3999]);
        for (int i = 1; i < second.length; i++) {
            assertThat(second[i]).isEqualTo(second[0] + i);
        }
    }

    @Test
    void moreThanOneMillisecondOfIdsIsStillUniqueAndAscending() {
        long[] ids = new SnowflakeIds(3, () -> T0).next(10_000);
        for (int i = 1; i < ids.length; i++) {
            assertThat(ids[i]).isGreaterThan(ids[i - 1]);
        }
    }

    @Test
    void aClockGoingBackwardsNeverRepeatsAnId() {
        AtomicLong now = new AtomicLong(T0);
        SnowflakeIds ids = new SnowflakeIds(5, now::get);
        long before = ids.next(1)[0];
        now.set(T0 - 5_000); // NTP step back by 5 s
        long after = ids.next(1)[0];
        assertThat(after).isGreaterThan(before);
        assertThat(SnowflakeIds.millisOf(after)).isEqualTo(T0);
        now.set(T0 + 1);
        assertThat(ids.next(1)[0]).isGreaterThan(after);
    }

    @Test
    void idsAreUniqueAcrossThreads() throws Exception {
        SnowflakeIds ids = new SnowflakeIds(9);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<long[]>> parts = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                Callable<long[]> work = () -> {
                    long[] out = new long[20_000];
                    int n = 0;
                    while (n < out.length) {
                        long[] got = ids.next(1 + n % 7);
                        for (int i = 1; i < got.length; i++) {
                            assertThat(got[i]).isEqualTo(got[i - 1] + 1);
                        }
                        for (long id : got) {
                            if (n < out.length) {
                                out[n++] = id;
                            }
                        }
                    }
                    return out;
                };
                parts.add(pool.submit(work));
            }
            Set<Long> seen = new HashSet<>();
            for (Future<long[]> part : parts) {
                long[] got = part.get();
                for (int i = 0; i < got.length; i++) {
                    assertThat(seen.add(got[i])).as("duplicate id %d", got[i]).isTrue();
                    if (i > 0) {
                        assertThat(got[i]).isGreaterThan(got[i - 1]); // monotonic per caller
                    }
                }
            }
            assertThat(seen).hasSize(8 * 20_000);
        } finally {
            pool.shutdownNow();
        }
    }
}
