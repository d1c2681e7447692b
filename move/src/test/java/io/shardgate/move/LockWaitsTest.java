package io.shardgate.move;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LockWaitsTest {
    @Test
    void aStepThatTimedOutOnALockOrDeadlockedRunsAgain() throws SQLException {
        AtomicInteger runs = new AtomicInteger();
        String result = LockWaits.retried(() -> {
            int run = runs.incrementAndGet();
            if (run == 1) {
                throw new SQLException("Lock wait timeout exceeded; try restarting transaction", "HY000", 1205);
            }
            if (run == 2) {
                throw new SQLException("Deadlock found when trying to get lock", "40001", 1213);
            }
            return "read";
        });
        assertThat(result).isEqualTo("read");
        assertThat(runs).hasValue(3);
    }

    @Test
    void anyOtherErrorEndsTheStepAtOnce() {
        AtomicInteger runs = new AtomicInteger();
        assertThatThrownBy(() -> LockWaits.retried(() -> {
                    runs.incrementAndGet();
                    throw new SQLException("Duplicate entry", "23000", 1062);
                }))
                .hasMessage("Duplicate entry");
        assertThat(runs).hasValue(1);
    }

    @Test
    void lockWaitsPastTheBudgetFail() {
        AtomicInteger runs = new AtomicInteger();
        assertThatThrownBy(() -> LockWaits.retried(
                        () -> {
                            runs.incrementAndGet();
                            throw new SQLException("Lock wait timeout exceeded", "HY000", 1205);
                        },
                        Duration.ZERO))
                .hasMessage("Lock wait timeout exceeded");
        assertThat(runs).hasValue(1);
    }

    @Test
    void aNoWaitReadMeetingALockedRowIsToldFromOtherErrors() {
        assertThat(LockWaits.lockedNow(new SQLException("Lock wait timeout exceeded", "HY000", 1205)))
                .as("MariaDB")
                .isTrue();
        assertThat(LockWaits.lockedNow(new SQLException(
                        "Statement aborted because lock(s) could not be acquired" + " immediately and NOWAIT is set.",
                        "HY000",
                        3572)))
                .as("MySQL 8")
                .isTrue();
        assertThat(LockWaits.lockedNow(new SQLException("Deadlock found", "40001", 1213)))
                .isFalse();
    }
}
