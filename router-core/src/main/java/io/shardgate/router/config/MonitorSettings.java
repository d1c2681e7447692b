package io.shardgate.router.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code monitor} section of a hostgroup: how often each of its servers is checked (connect,
 * log in, ping, {@code @@read_only}, replication lag) and when a failing one is shunned.
 *
 * @param enabled false: no checks; servers stay as the configuration and the API set them
 * @param intervalMillis time between two checks of one server
 * @param timeoutMillis a check not finished by then counts as failed
 * @param shunAfterFailures consecutive failed checks (or connections of the pool refused or
 *     unreachable) before the server is SHUNNED; one passing check brings it back ONLINE
 */
public record MonitorSettings(
        Boolean enabled, Integer intervalMillis, Integer timeoutMillis, Integer shunAfterFailures) {
    public MonitorSettings {
        enabled = enabled == null ? Boolean.TRUE : enabled;
        intervalMillis = intervalMillis == null ? 2000 : intervalMillis;
        timeoutMillis = timeoutMillis == null ? 2000 : timeoutMillis;
        shunAfterFailures = shunAfterFailures == null ? 3 : shunAfterFailures;
    }

    static MonitorSettings defaults() {
        return new MonitorSettings(null, null, null, null);
    }

    List<String> validate(String at) {
        List<String> problems = new ArrayList<>();
        if (intervalMillis < 10 || timeoutMillis < 1) {
            problems.add(at + ".monitor.interval_millis must be at least 10 and timeout_millis positive");
        }
        if (shunAfterFailures < 1) {
            problems.add(at + ".monitor.shun_after_failures must be at least 1, was " + shunAfterFailures);
        }
        return problems;
    }
}
