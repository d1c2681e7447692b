package io.shardgate.router.twophase;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResolverPacingTest {

    private static List<Boolean> periods(Resolver resolver, boolean leads, int n) {
        List<Boolean> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(resolver.passesThisPeriod(leads));
        }
        return out;
    }

    @Test
    void theLeaderPassesEveryPeriodAFollowerOnceInFifteen() {
        try (Resolver resolver = new Resolver(null, null, null, null, null, null, null, "/sg", 2000, 10_000)) {
            assertThat(periods(resolver, true, 5)).containsOnly(true);
            List<Boolean> following = periods(resolver, false, 3 * Resolver.FOLLOWER_PERIODS);
            assertThat(following.stream().filter(b -> b).count()).isEqualTo(3);
            assertThat(following.get(Resolver.FOLLOWER_PERIODS - 1)).isTrue();
            assertThat(following.subList(0, Resolver.FOLLOWER_PERIODS - 1)).containsOnly(false);
            // leading again: at once, every period
            assertThat(periods(resolver, true, 3)).containsOnly(true);
        }
    }
}
