package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.sharding.rule.TransactionMode;
import org.junit.jupiter.api.Test;

class TwoPhaseRulesTest {
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;

    @Test
    void twoPhaseCommitOnlyWhenTwoOrMoreBranchesMayHaveWritten() {
        assertThat(TwoPhaseRules.needsTwoPhase(java.util.List.of(10, 20), java.util.Set.of()))
                .as("both wrote")
                .isTrue();
        assertThat(TwoPhaseRules.needsTwoPhase(java.util.List.of(10, 20), java.util.Set.of(10)))
                .as("10 only read")
                .isFalse();
        assertThat(TwoPhaseRules.needsTwoPhase(java.util.List.of(10, 20, 30), java.util.Set.of(10)))
                .as("20 and 30 wrote")
                .isTrue();
        assertThat(TwoPhaseRules.needsTwoPhase(java.util.List.of(10, 20), java.util.Set.of(10, 20)))
                .as("none wrote")
                .isFalse();
        assertThat(TwoPhaseRules.needsTwoPhase(java.util.List.of(10), java.util.Set.of()))
                .as("one shard")
                .isFalse();
    }

    @Test
    void aReadWriteTransactionOfATwoPhaseSchemaRunsAsXa() {
        assertThat(TwoPhaseRules.usesXa(TransactionMode.TWO_PHASE, false)).isTrue();
        assertThat(TwoPhaseRules.usesXa(TransactionMode.TWO_PHASE, true))
                .as("READ ONLY")
                .isFalse();
        assertThat(TwoPhaseRules.usesXa(TransactionMode.BEST_EFFORT, false)).isFalse();
    }

    @Test
    void beginsXaCannotExpressAreRefusedInTwoPhaseSchemasOnly() {
        assertThat(TwoPhaseRules.beginRefusal(TransactionMode.TWO_PHASE, false)).contains("two_phase");
        assertThat(TwoPhaseRules.beginRefusal(TransactionMode.TWO_PHASE, true)).isNull();
        assertThat(TwoPhaseRules.beginRefusal(TransactionMode.BEST_EFFORT, false))
                .isNull();
    }

    @Test
    void commitAndRollbackFormsMapToXaOrAreRefused() {
        assertThat(TwoPhaseRules.xaEnd("COMMIT")).isTrue();
        assertThat(TwoPhaseRules.xaEnd("commit work")).isTrue();
        assertThat(TwoPhaseRules.xaEnd("ROLLBACK")).isFalse();
        assertThat(TwoPhaseRules.xaEnd("ROLLBACK WORK")).isFalse();
        assertThat(TwoPhaseRules.xaEnd("ROLLBACK TO SAVEPOINT a")).isNull();
        assertThat(TwoPhaseRules.xaEnd("SAVEPOINT a")).isNull();
        assertThat(TwoPhaseRules.endRefusal("ROLLBACK TO SAVEPOINT a")).isNull();
        assertThat(TwoPhaseRules.endRefusal("RELEASE SAVEPOINT a")).isNull();
        assertThat(TwoPhaseRules.endRefusal("COMMIT")).isNull();
        assertThat(TwoPhaseRules.endRefusal("COMMIT AND CHAIN")).contains("AND CHAIN");
        assertThat(TwoPhaseRules.endRefusal("ROLLBACK RELEASE")).contains("RELEASE");
    }

    @Test
    void withAutocommitOffAWriteMayNotOpenASecondShard() {
        // autocommit off, no BEGIN: the server's implicit transactions cannot join XA
        assertThat(TwoPhaseRules.autocommitOffRefusal(TransactionMode.TWO_PHASE, 0, false, 2, 0))
                .isNotNull();
        assertThat(TwoPhaseRules.autocommitOffRefusal(TransactionMode.TWO_PHASE, 0, false, 1, 1))
                .isNotNull();
        assertThat(TwoPhaseRules.autocommitOffRefusal(TransactionMode.TWO_PHASE, 0, false, 1, 0))
                .isNull();
        assertThat(TwoPhaseRules.autocommitOffRefusal(TransactionMode.TWO_PHASE, 0, true, 2, 0))
                .as("an explicit (XA) transaction")
                .isNull();
        assertThat(TwoPhaseRules.autocommitOffRefusal(TransactionMode.TWO_PHASE, AUTOCOMMIT, false, 2, 0))
                .isNull();
        assertThat(TwoPhaseRules.autocommitOffRefusal(TransactionMode.BEST_EFFORT, 0, false, 2, 0))
                .isNull();
    }
}
