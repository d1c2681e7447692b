package io.shardgate.router.frontend;

import static io.shardgate.router.frontend.DiagnosticsArea.Outcome.STATEMENTS;
import static io.shardgate.router.frontend.DiagnosticsArea.Outcome.UNCHANGED;
import static io.shardgate.router.frontend.DiagnosticsArea.Outcome.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.session.DiagnosticsEffect;
import org.junit.jupiter.api.Test;

class DiagnosticsAreaTest {

    @Test
    void aRaisedConditionMakesTheAreaTheStatementsWhateverItsKind() {
        for (DiagnosticsEffect effect : DiagnosticsEffect.values()) {
            assertThat(DiagnosticsArea.after(true, true, effect))
                    .as("%s", effect)
                    .isEqualTo(STATEMENTS);
            assertThat(DiagnosticsArea.after(false, true, effect))
                    .as("%s", effect)
                    .isEqualTo(STATEMENTS);
        }
    }

    @Test
    void aStatementThatUsesATableEmptiesTheArea() {
        assertThat(DiagnosticsArea.after(true, false, DiagnosticsEffect.CLEARS)).isEqualTo(STATEMENTS);
        assertThat(DiagnosticsArea.after(false, false, DiagnosticsEffect.CLEARS))
                .isEqualTo(STATEMENTS);
    }

    @Test
    void aStatementWithoutTablesThatRaisedNothingLeavesTheEarlierWarningsWhereTheyAre() {
        // SELECT 1 on another connection: SHOW WARNINGS still reads the holder
        assertThat(DiagnosticsArea.after(true, false, DiagnosticsEffect.KEEPS)).isEqualTo(UNCHANGED);
        // after a multi-shard statement or a lost connection: still unknown, still refused
        assertThat(DiagnosticsArea.after(false, false, DiagnosticsEffect.KEEPS)).isEqualTo(UNCHANGED);
    }

    @Test
    void anUnsureStatementLosesWarningsHeldElsewhere() {
        assertThat(DiagnosticsArea.after(true, false, DiagnosticsEffect.UNSURE)).isEqualTo(UNKNOWN);
    }

    @Test
    void anUnsureStatementThatRaisedNothingLeavesAnEmptyOrUnknownAreaAsItWas() {
        assertThat(DiagnosticsArea.after(false, false, DiagnosticsEffect.UNSURE))
                .isEqualTo(UNCHANGED);
    }

    @Test
    void aDiagnosticsStatementChangesNothing() {
        assertThat(DiagnosticsArea.after(true, false, DiagnosticsEffect.READS)).isEqualTo(UNCHANGED);
        assertThat(DiagnosticsArea.after(false, false, DiagnosticsEffect.READS)).isEqualTo(UNCHANGED);
    }
}
