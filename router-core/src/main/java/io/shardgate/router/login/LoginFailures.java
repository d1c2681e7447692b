package io.shardgate.router.login;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;

/**
 * Failed logins per client address, for {@code server.max_login_failures}: an address with that
 * many failed logins (ERROR 1045) within {@code server.login_failure_window_millis} is refused with
 * ER_HOST_IS_BLOCKED before the handshake until the window has passed since the failure that
 * blocked it. MySQL's host cache with {@code max_connect_errors} does the same, except that MySQL
 * keeps a host blocked until FLUSH HOSTS; an expiring block needs no operator to recover.
 *
 * <p>Thread-safe: every event loop reports here. Bounded: Caffeine drops an address once its
 * window has passed, and keeps at most {@link #MAX_ADDRESSES} (least recently failing go first),
 * so a flood from many addresses cannot grow it without bound.
 */
public final class LoginFailures {
    static final long MAX_ADDRESSES = 100_000;

    /** Failures counted since {@code start}; {@code blockedUntil} is set once they reach the limit. */
    private record Window(long start, int failures, long blockedUntil) {}

    private final int maxFailures;
    private final long windowNanos;
    private final Ticker ticker;
    private final Cache<String, Window> windows;

    /** {@code maxFailures} 0 never blocks. */
    public LoginFailures(int maxFailures, Duration window) {
        this(maxFailures, window, Ticker.systemTicker());
    }

    LoginFailures(int maxFailures, Duration window, Ticker ticker) {
        this.maxFailures = maxFailures;
        this.windowNanos = window.toNanos();
        this.ticker = ticker;
        this.windows = Caffeine.newBuilder()
                .expireAfterWrite(window)
                .maximumSize(MAX_ADDRESSES)
                .ticker(ticker)
                .executor(Runnable::run) // maintenance on the caller: no ForkJoinPool tasks
                .build();
    }

    /** Whether logins from {@code address} are refused right now. */
    public boolean blocked(String address) {
        Window w = windows.getIfPresent(address);
        return w != null && w.blockedUntil() != 0 && ticker.read() - w.blockedUntil() < 0;
    }

    /** Counts one failed login from {@code address}. */
    public void failed(String address) {
        if (maxFailures == 0) {
            return;
        }
        long now = ticker.read();
        windows.asMap().compute(address, (a, w) -> {
            if (w == null || now - w.start() >= windowNanos) {
                w = new Window(now, 0, 0);
            }
            int failures = w.failures() + 1;
            long blockedUntil = failures >= maxFailures && w.blockedUntil() == 0 ? now + windowNanos : w.blockedUntil();
            return new Window(w.start(), failures, blockedUntil);
        });
    }

    /** The failures that block an address (0: never). */
    public int maxFailures() {
        return maxFailures;
    }

    /** How long failures count and a block lasts. */
    public Duration window() {
        return Duration.ofNanos(windowNanos);
    }
}
