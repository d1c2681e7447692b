package io.shardgate.router.twophase;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RecoveryActionTest {
    private static final long GRACE = 10_000;

    @ParameterizedTest(name = "decision row {0}, owner alive {1}, prepared {2} ms: {3}")
    @CsvSource({
        // a commit row: the owner commits the branches, a resolver helps once the grace period is over
        "COMMIT,   true,  0,     WAIT",
        "COMMIT,   true,  9999,  WAIT",
        "COMMIT,   true,  10000, COMMIT",
        "COMMIT,   false, 0,     COMMIT",
        // a rollback row (a fence, or an operator) is carried out at once, whoever the owner
        "ROLLBACK, true,  0,     ROLLBACK",
        "ROLLBACK, false, 0,     ROLLBACK",
        // no row: a live owner may be between PREPARE and its manager's commit; else fence
        ",         true,  0,     WAIT",
        ",         true,  9999,  WAIT",
        ",         true,  10000, FENCE",
        ",         false, 0,     FENCE",
    })
    void decisionTable(Outcome row, boolean ownerAlive, long prepared, RecoveryAction expected) {
        assertThat(RecoveryAction.of(row, ownerAlive, prepared, GRACE)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "fence {0}, row read again {1}: {2}")
    @CsvSource({
        // the rollback row went in: the manager's commit row can no longer be inserted
        "INSERTED,  ,         ROLLBACK",
        // a row was there, or the manager's open transaction committed its row while the fence waited
        "DUPLICATE, COMMIT,   COMMIT",
        // an earlier fence (or an operator's rollback)
        "DUPLICATE, ROLLBACK, ROLLBACK",
        // a duplicate key and then no row: the reading failed; nothing is known
        "DUPLICATE, ,         WAIT",
        // the manager's transaction still holds its row: try next pass
        "LOCK_WAIT, ,         WAIT",
        "FAILED,    ,         WAIT",
    })
    void afterTheFence(RecoveryAction.Fence fence, Outcome reRead, RecoveryAction expected) {
        assertThat(RecoveryAction.afterFence(fence, reRead)).isEqualTo(expected);
    }
}
