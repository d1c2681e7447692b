package io.shardgate.router.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WriteClockTest {
    private final AtomicLong now = new AtomicLong(TimeUnit.SECONDS.toNanos(100));
    private final WriteClock clock = new WriteClock(now::get);

    private long at(long millis) {
        return now.get() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void aSessionThatNeverWroteReadsAnywhere() {
        assertThat(clock.wroteWithin(1000, now.get())).isFalse();
        assertThat(clock.writingStatement()).isFalse();
    }

    @Test
    void theWindowCountsFromTheEndOfTheWrite() {
        clock.writing();
        assertThat(clock.writingStatement()).isTrue();
        now.addAndGet(TimeUnit.SECONDS.toNanos(5)); // a long write
        clock.statementEnded();
        assertThat(clock.writingStatement()).isFalse();
        assertThat(clock.wroteWithin(200, at(199))).isTrue();
        assertThat(clock.wroteWithin(200, at(200))).isFalse();
    }

    @Test
    void aReadEndingDoesNotMoveTheClock() {
        clock.writing();
        clock.statementEnded();
        long wrote = now.get();
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        clock.statementEnded();
        assertThat(clock.wroteWithin(1000, wrote + TimeUnit.MILLISECONDS.toNanos(999)))
                .isTrue();
        assertThat(clock.wroteWithin(1000, wrote + TimeUnit.MILLISECONDS.toNanos(1000)))
                .isFalse();
    }
}
