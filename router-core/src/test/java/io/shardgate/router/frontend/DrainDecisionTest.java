package io.shardgate.router.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DrainDecisionTest {
    @ParameterizedTest(name = "draining={0} graceOver={1} inFlight={2} inTransaction={3} -> {4}")
    @CsvSource({
        // not draining: nothing closes, whatever the session does
        "false, false, false, false, KEEP",
        "false, false, true,  true,  KEEP",
        // draining: idle and outside a transaction closes now
        "true,  false, false, false, CLOSE_IDLE",
        // a statement in flight finishes first (its answer is never cut off)
        "true,  false, true,  false, KEEP",
        // a transaction gets the grace to COMMIT or ROLLBACK
        "true,  false, false, true,  KEEP",
        "true,  false, true,  true,  KEEP",
        // grace over: every session closes
        "true,  true,  false, false, CLOSE_GRACE_OVER",
        "true,  true,  true,  false, CLOSE_GRACE_OVER",
        "true,  true,  false, true,  CLOSE_GRACE_OVER",
    })
    void decides(boolean draining, boolean graceOver, boolean inFlight, boolean inTransaction, DrainDecision expected) {
        assertThat(DrainDecision.decide(draining, graceOver, inFlight, inTransaction))
                .isEqualTo(expected);
    }
}
