package io.shardgate.router.move;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The state transitions the admin surfaces ask of a move (cancel, reverse, cleanup), without a server. */
class MoveRecordTest {
    private static MoveRecord move(String what, String state, Map<String, String> checkpoints) {
        return new MoveRecord(
                "m-1",
                "shop",
                List.of("notes"),
                List.of(20),
                30,
                what,
                0,
                state,
                0,
                null,
                1,
                1,
                Map.of(),
                checkpoints,
                state.equals("done") ? 7 : 0);
    }

    private static MoveRecord switchedTable() {
        return move("table", "done", Map.of(MoveRecord.REVERSE_FROM, "log.000001:400"));
    }

    @Test
    void aDoneTableMoveStreamsBackUntilItIsReversedOrCleanedUp() {
        MoveRecord done = switchedTable();
        assertThat(done.active()).isFalse();
        assertThat(done.streamingBack()).isTrue();
        assertThat(done.needsMover()).isTrue();

        MoveRecord reversing = done.reversing(2);
        assertThat(reversing.state()).isEqualTo("reversing");
        assertThat(reversing.active()).isTrue();
        assertThat(reversing.switchedTable()).isTrue();
        MoveRecord reversed = reversing.reversed(9, 3);
        assertThat(reversed.state()).isEqualTo("reversed");
        assertThat(reversed.rulesVersion()).isEqualTo(9);
        assertThat(reversed.needsMover()).isFalse();
        assertThatThrownBy(() -> reversed.reversing(4)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> reversed.cleaningSource(4))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the source serves the table");

        MoveRecord cleaning = done.cleaningSource(2);
        assertThat(cleaning.state()).isEqualTo("cleaning_source");
        assertThat(cleaning.active()).isTrue();
        assertThat(cleaning.streamingBack()).isFalse();
        assertThatThrownBy(() -> cleaning.cancelled(3)).isInstanceOf(IllegalStateException.class);
        MoveRecord cleaned = cleaning.sourceCleaned(3);
        assertThat(cleaned.state()).isEqualTo("done");
        assertThat(cleaned.needsMover()).isFalse();
        assertThatThrownBy(() -> cleaned.reversing(4))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cleaned up its source");
        assertThatThrownBy(() -> cleaned.cleaningSource(4))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already");
    }

    @Test
    void aCleanupThatStoppedHalfWayIsAskedAgainButNeverReversed() {
        MoveRecord stopped = switchedTable().cleaningSource(2).switchedWithError("connection lost", true, 3);
        assertThat(stopped.state()).isEqualTo("done");
        assertThat(stopped.error()).isEqualTo("connection lost");
        assertThat(stopped.streamingBack()).isFalse();
        assertThatThrownBy(() -> stopped.reversing(4)).isInstanceOf(IllegalStateException.class);
        assertThat(stopped.cleaningSource(4).state()).isEqualTo("cleaning_source");
    }

    @Test
    void aReverseStreamThatStoppedRefusesTheReverseButAllowsTheCleanup() {
        MoveRecord stopped = switchedTable().switchedWithError("DDL on the table", true, 2);
        assertThat(stopped.needsMover()).isFalse();
        assertThatThrownBy(() -> stopped.reversing(3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("reverse stream stopped (DDL on the table)");
        assertThat(stopped.cleaningSource(3).state()).isEqualTo("cleaning_source");

        MoveRecord letGo = switchedTable().reversing(2).switchedWithError("reverse: not in 5 attempts", false, 3);
        assertThat(letGo.streamingBack()).isTrue();
        assertThat(letGo.reversing(4).error()).isNull();
    }

    @Test
    void onlyADoneWholeTableMoveIsReversedOrCleanedUp() {
        MoveRecord buckets = move("8-15", "done", Map.of());
        assertThat(buckets.streamingBack()).isFalse();
        assertThatThrownBy(() -> buckets.reversing(2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("moves hash buckets");
        assertThatThrownBy(() -> buckets.cleaningSource(2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("moves hash buckets");
        for (String state : List.of("copying", "catching_up", "verifying", "cutting_over", "failed", "cancelled")) {
            MoveRecord table = move("table", state, Map.of());
            assertThatThrownBy(() -> table.reversing(2)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> table.cleaningSource(2)).isInstanceOf(IllegalStateException.class);
            assertThat(table.streamingBack()).isFalse();
        }
    }

    @Test
    void aCancelIsRefusedOnceTheTableSwitched() {
        assertThat(move("table", "verifying", Map.of()).cancelled(2).state()).isEqualTo("cancelled");
        assertThatThrownBy(() -> move("table", "cutting_over", Map.of()).cancelled(2))
                .hasMessageContaining("cutting over");
        assertThatThrownBy(() -> switchedTable().cancelled(2)).hasMessageContaining("done already");
        assertThatThrownBy(() -> switchedTable().reversing(2).cancelled(3)).hasMessageContaining("reverse it instead");
        Map<String, String> checkpoints = new HashMap<>();
        assertThatThrownBy(() -> move("8-15", "cleaning_up", checkpoints).cancelled(2))
                .hasMessageContaining("switched already");
    }
}
