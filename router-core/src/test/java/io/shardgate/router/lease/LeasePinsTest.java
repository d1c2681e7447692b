package io.shardgate.router.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.session.PinReason;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LeasePinsTest {
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private static final int IN_TRANSACTION = AUTOCOMMIT | ServerStatus.SERVER_STATUS_IN_TRANS;

    @Test
    void anAutocommitSessionWithoutStateReturnsItsConnection() {
        LeasePins pins = new LeasePins(true);
        assertThat(pins.pinned(AUTOCOMMIT)).isFalse();
        assertThat(pins.reasons(AUTOCOMMIT)).isEmpty();
    }

    @Test
    void anOpenTransactionOrAutocommitOffPinsAsLongAsTheServerSaysSo() {
        LeasePins pins = new LeasePins(true);
        assertThat(pins.holdsSessionState(IN_TRANSACTION)).isTrue();
        assertThat(pins.reasons(IN_TRANSACTION)).containsExactly(PinReason.TRANSACTION);
        assertThat(pins.reasons(0)).containsExactly(PinReason.AUTOCOMMIT_OFF);
        assertThat(LeasePins.inTransaction(0)).isTrue();
        assertThat(pins.pinned(AUTOCOMMIT)).isFalse();
    }

    @Test
    void stickyPinsHoldUntilTheSessionStartsOverButMultiplexingOffStays() {
        LeasePins pins = new LeasePins(false);
        pins.pin(Set.of(PinReason.USER_VARIABLE));
        assertThat(pins.reasons(AUTOCOMMIT))
                .containsExactlyInAnyOrder(PinReason.USER_VARIABLE, PinReason.MULTIPLEXING_OFF);
        assertThat(pins.onlyConfigured()).isFalse();
        pins.clearSticky();
        assertThat(pins.reasons(AUTOCOMMIT)).containsExactly(PinReason.MULTIPLEXING_OFF);
        assertThat(pins.onlyConfigured()).isTrue();
        assertThat(pins.pinned(AUTOCOMMIT)).isTrue();
    }

    @Test
    void unpinDropsOneReason() {
        LeasePins pins = new LeasePins(true);
        pins.pin(Set.of(PinReason.LONG_DATA, PinReason.NAMED_LOCK));
        pins.unpin(PinReason.LONG_DATA);
        assertThat(pins.reasons(AUTOCOMMIT)).containsExactly(PinReason.NAMED_LOCK);
    }

    @Test
    void anInsertKeepsItsConnectionForTheNextStatements() {
        LeasePins pins = new LeasePins(true);
        pins.statementEnded(true);
        for (int i = 1; i < LeasePins.INSERT_ID_HOLD; i++) {
            pins.statementEnded(false);
            assertThat(pins.reasons(AUTOCOMMIT)).containsExactly(PinReason.LAST_INSERT_ID);
        }
        pins.statementEnded(false);
        assertThat(pins.pinned(AUTOCOMMIT)).isFalse();
    }

    @Test
    void theInsertHoldEndsEarlyWhenTheSessionIsQuiet() {
        LeasePins pins = new LeasePins(true);
        pins.statementEnded(true);
        assertThat(pins.holdsInsertId()).isTrue();
        pins.endInsertIdHold();
        assertThat(pins.pinned(AUTOCOMMIT)).isFalse();
    }

    @Test
    void theDiagnosticsHoldPinsButHoldsNoSessionState() {
        LeasePins pins = new LeasePins(true);
        pins.holdDiagnostics(true);
        assertThat(pins.pinned(AUTOCOMMIT)).isTrue();
        assertThat(pins.holdsSessionState(AUTOCOMMIT)).isFalse();
        assertThat(pins.reasons(AUTOCOMMIT)).containsExactly(PinReason.DIAGNOSTICS);
        pins.clearSticky();
        assertThat(pins.holdsDiagnostics()).isFalse();
    }
}
