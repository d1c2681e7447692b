package io.shardgate.router.twophase;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RecoveryActionTest {
    private static final long GRACE = 10_000;
    private static final long STUCK = 300_000;

    @ParameterizedTest(name = "decision {0}, owner alive {1}, decided {2} ms ago, prepared {3} ms: {4}")
    @CsvSource({
        // a commit decision: the owner commits it, a resolver helps once the grace period is over
        "COMMIT,   true,  0,      0,      WAIT",
        "COMMIT,   true,  9999,   0,      WAIT",
        "COMMIT,   true,  10000,  0,      COMMIT",
        "COMMIT,   false, 0,      0,      COMMIT",
        // a rollback decision is carried out at once, whoever the owner
        "ROLLBACK, true,  0,      0,      ROLLBACK",
        "ROLLBACK, false, 0,      0,      ROLLBACK",
        // no decision: a live owner may still be preparing; a dead one never will decide
        ",         true,  0,      0,      WAIT",
        ",         true,  0,      299999, WAIT",
        ",         true,  0,      300000, CLAIM_ROLLBACK",
        ",         false, 0,      0,      CLAIM_ROLLBACK",
    })
    void decisionTable(Outcome logged, boolean ownerAlive, long age, long prepared, RecoveryAction expected) {
        assertThat(RecoveryAction.of(logged, ownerAlive, age, GRACE, prepared, STUCK))
                .isEqualTo(expected);
    }
}
