package io.shardgate.router.login;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.auth.StoredCredential;
import io.shardgate.router.config.UserConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class UserConnectionsTest {
    private final UserConfig limited = new UserConfig("app", StoredCredential.fromPassword("x"), null, false, 2);
    private final UserConfig unlimited = new UserConfig("batch", StoredCredential.fromPassword("y"), null);
    private final UserConnections connections = new UserConnections();

    @Test
    void refusesBeyondTheLimitAndReleasesSlots() {
        assertThat(connections.tryAcquire(limited)).isTrue();
        assertThat(connections.tryAcquire(limited)).isTrue();
        assertThat(connections.tryAcquire(limited)).isFalse();
        assertThat(connections.open("app")).isEqualTo(2);
        connections.release(limited);
        assertThat(connections.tryAcquire(limited)).isTrue();
        connections.release(limited);
        connections.release(limited);
        assertThat(connections.open("app")).isZero();
    }

    @Test
    void usersWithoutALimitAreNotCounted() {
        for (int i = 0; i < 100; i++) {
            assertThat(connections.tryAcquire(unlimited)).isTrue();
        }
        assertThat(connections.open("batch")).isZero();
    }

    @Test
    void concurrentChurnLeaksNoSlot() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> runs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                runs.add(pool.submit(() -> {
                    int admitted = 0;
                    for (int i = 0; i < 10_000; i++) {
                        if (connections.tryAcquire(limited)) {
                            admitted++;
                            assertThat(connections.open("app")).isBetween(1, 2);
                            connections.release(limited);
                        }
                    }
                    return admitted;
                }));
            }
            int admitted = 0;
            for (Future<Integer> run : runs) {
                admitted += run.get();
            }
            assertThat(admitted).isPositive();
        } finally {
            pool.shutdownNow();
        }
        assertThat(connections.open("app")).isZero();
        assertThat(connections.tryAcquire(limited)).isTrue();
        assertThat(connections.tryAcquire(limited)).isTrue();
        assertThat(connections.tryAcquire(limited)).isFalse();
    }
}
