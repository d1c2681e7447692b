package io.shardgate.router.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.frontend.LossDecision.Outcome;
import org.junit.jupiter.api.Test;

class LossDecisionTest {
    /** A read relayed on its own lease, kept for a retry, lost before any byte of its response, just after sending. */
    private static final LossDecision FRESH_READ =
            new LossDecision(true, true, false, false, false, false, true, false, true, true, false, false);

    @Test
    void aReadOnAConnectionDeadBeforeTheServerReadItRunsAgain() {
        assertThat(FRESH_READ.afterLoss()).isEqualTo(Outcome.RETRY);
    }

    @Test
    void aLossLaterThanTheWindowIsAnsweredNotRetried() {
        // an operator's KILL of a running query: it must fail, not run again
        LossDecision late =
                new LossDecision(true, true, false, false, false, false, true, false, true, false, false, false);
        assertThat(late.afterLoss()).isEqualTo(Outcome.ANSWER);
    }

    @Test
    void aCutSetupStepRetriesWhateverTheTime() {
        // alignment or BEGIN died: the client's statement itself never left the router
        LossDecision setup =
                new LossDecision(true, true, false, true, false, false, true, false, true, false, false, false);
        assertThat(setup.afterLoss()).isEqualTo(Outcome.RETRY);
    }

    @Test
    void aWriteOrAStatementNotKeptIsNeverRetried() {
        LossDecision write =
                new LossDecision(true, true, false, false, false, false, true, true, true, true, false, false);
        LossDecision notKept =
                new LossDecision(true, true, false, false, false, false, true, false, false, true, false, false);
        LossDecision started =
                new LossDecision(true, true, false, false, false, false, false, false, true, true, false, false);
        assertThat(write.afterLoss()).isEqualTo(Outcome.ANSWER);
        assertThat(notKept.afterLoss()).isEqualTo(Outcome.ANSWER);
        assertThat(started.afterLoss()).isEqualTo(Outcome.ANSWER);
    }

    @Test
    void aConnectionHoldingSessionStateTakesTheClientSessionWithIt() {
        LossDecision inTransaction =
                new LossDecision(true, true, false, false, false, true, true, false, true, true, false, false);
        LossDecision midPacket =
                new LossDecision(true, true, false, false, false, true, false, false, false, true, true, false);
        assertThat(inTransaction.afterLoss()).isEqualTo(Outcome.CLOSE_WITH_ERROR);
        assertThat(midPacket.afterLoss()).isEqualTo(Outcome.CLOSE);
    }

    @Test
    void aResponseCutMidPacketClosesTheClient() {
        // no ERR can follow part of a packet
        LossDecision cut =
                new LossDecision(true, true, false, false, false, false, false, false, false, false, true, false);
        assertThat(cut.afterLoss()).isEqualTo(Outcome.CLOSE);
    }

    @Test
    void anIdleSessionGoesOnUnlessItsConnectionHeldItsState() {
        LossDecision idle =
                new LossDecision(false, false, false, false, false, false, false, false, false, false, false, false);
        LossDecision pinned =
                new LossDecision(false, false, false, false, false, true, false, false, false, false, false, false);
        assertThat(idle.afterLoss()).isEqualTo(Outcome.CONTINUE);
        assertThat(pinned.afterLoss()).isEqualTo(Outcome.CLOSE);
    }

    @Test
    void aLossUnderARoutedCommandOrAnUploadEndsTheSessionWithTheError() {
        // a scatter answered by the router, or LOCAL INFILE data: no statement of the client's to answer alone
        LossDecision routed =
                new LossDecision(true, false, true, false, false, false, true, false, false, true, false, false);
        LossDecision upload =
                new LossDecision(true, true, false, false, true, false, false, false, false, true, false, false);
        assertThat(routed.afterLoss()).isEqualTo(Outcome.CLOSE_WITH_ERROR);
        assertThat(upload.afterLoss()).isEqualTo(Outcome.CLOSE_WITH_ERROR);
    }

    @Test
    void aLossOnAnotherLeaseThanTheRunningOneDoesNotEndTheCommand() {
        LossDecision other =
                new LossDecision(true, false, false, false, false, false, false, false, true, true, false, false);
        assertThat(other.running()).isFalse();
        assertThat(other.afterLoss()).isEqualTo(Outcome.CONTINUE);
    }

    @Test
    void aTimedOutStatementIsAnsweredAndNeverRetried() {
        assertThat(FRESH_READ.afterTimeout()).isEqualTo(Outcome.ANSWER);
    }

    @Test
    void aTimeoutThatCostTheSessionStateOrCutAPacketClosesTheClient() {
        LossDecision pinned =
                new LossDecision(true, true, false, false, false, true, true, false, false, true, false, false);
        LossDecision routed =
                new LossDecision(true, false, true, false, false, false, true, false, false, true, false, false);
        LossDecision cut =
                new LossDecision(true, true, false, false, false, false, false, false, false, true, true, false);
        assertThat(pinned.afterTimeout()).isEqualTo(Outcome.CLOSE_WITH_ERROR);
        assertThat(routed.afterTimeout()).isEqualTo(Outcome.CLOSE_WITH_ERROR);
        assertThat(cut.afterTimeout()).isEqualTo(Outcome.CLOSE);
    }

    @Test
    void aLossDuringTheWarningCountAfterAnAnsweredStatementEndsTheCommandAndKeepsTheSession() {
        // issue 23: the client has its whole response; only the warnings held there are lost
        LossDecision checking =
                new LossDecision(true, true, false, true, false, false, true, false, false, false, false, true);
        assertThat(checking.afterLoss()).isEqualTo(Outcome.FINISH);
        assertThat(checking.afterTimeout()).isEqualTo(Outcome.FINISH);
    }

    @Test
    void aLossDuringTheWarningCountOnAConnectionHoldingSessionStateClosesWithoutAnError() {
        // as when idle: the client sent nothing an ERR could answer
        LossDecision inTransaction =
                new LossDecision(true, true, false, true, false, true, true, false, false, false, false, true);
        assertThat(inTransaction.afterLoss()).isEqualTo(Outcome.CLOSE);
        assertThat(inTransaction.afterTimeout()).isEqualTo(Outcome.CLOSE);
    }

    @Test
    void aCutSetupStepNotKeptForAnotherRunStillEndsTheSessionWithTheError() {
        // the same facts without the check: what a loss during the warning count got before
        LossDecision setup =
                new LossDecision(true, true, false, true, false, false, true, false, false, false, false, false);
        assertThat(setup.afterLoss()).isEqualTo(Outcome.CLOSE_WITH_ERROR);
    }
}
