package io.shardgate.router.login;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoginFailuresTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final Ticker ticker = now::get;
    private final LoginFailures failures = new LoginFailures(3, Duration.ofSeconds(10), ticker);

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void blocksAnAddressAtTheLimitWithinTheWindowOnly() {
        failures.failed("10.0.0.1");
        failures.failed("10.0.0.1");
        assertThat(failures.blocked("10.0.0.1")).isFalse();
        failures.failed("10.0.0.1");
        assertThat(failures.blocked("10.0.0.1")).isTrue();
        assertThat(failures.blocked("10.0.0.2"))
                .as("other addresses are not blocked")
                .isFalse();
        advance(Duration.ofSeconds(9));
        assertThat(failures.blocked("10.0.0.1")).isTrue();
        advance(Duration.ofSeconds(1));
        assertThat(failures.blocked("10.0.0.1"))
                .as("unblocked once the window has passed")
                .isFalse();
    }

    @Test
    void failuresSpreadOverMoreThanTheWindowDoNotBlock() {
        for (int i = 0; i < 10; i++) {
            failures.failed("10.0.0.1");
            advance(Duration.ofSeconds(6)); // two failures per 10 s window at most
            if (i % 2 == 1) {
                assertThat(failures.blocked("10.0.0.1")).isFalse();
            }
        }
    }

    @Test
    void failuresWhileBlockedDoNotProlongTheBlock() {
        for (int i = 0; i < 3; i++) {
            failures.failed("10.0.0.1");
        }
        advance(Duration.ofSeconds(5));
        failures.failed("10.0.0.1");
        advance(Duration.ofSeconds(5));
        assertThat(failures.blocked("10.0.0.1")).isFalse();
    }

    @Test
    void zeroNeverBlocks() {
        LoginFailures off = new LoginFailures(0, Duration.ofSeconds(10), ticker);
        for (int i = 0; i < 1000; i++) {
            off.failed("10.0.0.1");
        }
        assertThat(off.blocked("10.0.0.1")).isFalse();
    }
}
