package io.shardgate.router.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.router.session.SessionVariables;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SessionAlignmentTest {
    private static SessionVariables state(String schema, String... assignments) {
        Map<String, String> fragments = new LinkedHashMap<>();
        for (String a : assignments) {
            fragments.put(a.substring(0, a.indexOf(' ')), a);
        }
        return new SessionVariables(schema, fragments);
    }

    private static List<String> commands(SessionAlignment alignment) {
        return alignment.steps().stream().map(SessionAlignment.Step::toString).toList();
    }

    @Test
    void matchingStatesNeedNothing() {
        SessionAlignment alignment =
                SessionAlignment.of(state("shop", "sql_mode = ''"), state("shop", "sql_mode = ''"), false);
        assertThat(alignment.steps()).isEmpty();
        assertThat(alignment.reset()).isFalse();
    }

    @Test
    void missingAssignmentsAfterTheConnectionsOwnGoInOneSet() {
        SessionAlignment alignment = SessionAlignment.of(
                state("shop", "sql_mode = ''"),
                state("shop", "sql_mode = ''", "time_zone = '+00:00'", "names = utf8mb4"),
                false);
        assertThat(commands(alignment)).containsExactly("COM_QUERY SET time_zone = '+00:00', names = utf8mb4");
        assertThat(alignment.reset()).isFalse();
    }

    @Test
    void setSessionTransactionGetsAStatementOfItsOwn() {
        SessionAlignment alignment = SessionAlignment.of(
                state("shop"),
                state(
                        "shop",
                        "sql_mode = ''",
                        "SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
                        "time_zone = 'UTC'"),
                false);
        assertThat(commands(alignment))
                .containsExactly(
                        "COM_QUERY SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
                        "COM_QUERY SET sql_mode = '', time_zone = 'UTC'");
    }

    @Test
    void aConnectionWithAssignmentsTheSessionLacksIsResetAndReplayedWhole() {
        // order matters (SET NAMES overrides character_set_results set before it): no partial undo
        SessionAlignment alignment =
                SessionAlignment.of(state("shop", "autocommit = 0"), state("shop", "sql_mode = ''"), false);
        assertThat(commands(alignment))
                .containsExactly("COM_RESET_CONNECTION", "COM_INIT_DB shop", "COM_QUERY SET sql_mode = ''");
        assertThat(alignment.reset()).isTrue();
    }

    @Test
    void anotherSchemaIsSelectedAndOtherSessionsWarningsClearedFirst() {
        SessionAlignment alignment = SessionAlignment.of(state("shop"), state("billing"), true);
        assertThat(commands(alignment)).containsExactly("COM_QUERY " + DiagnosticsHold.CLEAR, "COM_INIT_DB billing");
        assertThat(alignment.reset()).isFalse();
    }

    @Test
    void theSessionsLastInsertIdIsGivenToTheServerSessionUnlessAResetGivesIt() {
        SessionAlignment kept = SessionAlignment.of(state("shop"), state("shop", "sql_mode = ''"), true, 0);
        assertThat(commands(kept))
                .containsExactly(
                        "COM_QUERY " + DiagnosticsHold.CLEAR,
                        "COM_QUERY DO LAST_INSERT_ID(0)",
                        "COM_QUERY SET sql_mode = ''");
        assertThat(commands(SessionAlignment.of(state("shop"), state("shop"), false, 42)))
                .as("also when the states match")
                .containsExactly("COM_QUERY DO LAST_INSERT_ID(42)");
        assertThat(commands(SessionAlignment.of(state("shop"), state("shop"), false, -2)))
                .as("an unsigned value beyond Long.MAX_VALUE")
                .containsExactly("COM_QUERY DO LAST_INSERT_ID(18446744073709551614)");

        SessionAlignment reset =
                SessionAlignment.of(state("shop", "autocommit = 0"), state("shop", "sql_mode = ''"), false, 0);
        assertThat(commands(reset))
                .as("COM_RESET_CONNECTION sets LAST_INSERT_ID() to 0 itself")
                .containsExactly("COM_RESET_CONNECTION", "COM_INIT_DB shop", "COM_QUERY SET sql_mode = ''");
        SessionAlignment resetThenSet =
                SessionAlignment.of(state("shop", "autocommit = 0"), state("shop", "sql_mode = ''"), false, 7);
        assertThat(commands(resetThenSet))
                .containsExactly(
                        "COM_RESET_CONNECTION",
                        "COM_QUERY DO LAST_INSERT_ID(7)",
                        "COM_INIT_DB shop",
                        "COM_QUERY SET sql_mode = ''");
        assertThat(commands(SessionAlignment.of(state("shop"), state("shop"), false)))
                .as("nothing to set")
                .isEmpty();
    }

    @Test
    void aStepIsWrittenAsCommandByteAndText() {
        ByteBuf out = Unpooled.buffer();
        try {
            new SessionAlignment.Step(io.shardgate.protocol.type.Command.COM_INIT_DB, "shop").write(out);
            assertThat(out.readUnsignedByte()).isEqualTo((short) 0x02);
            assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("shop");
        } finally {
            out.release();
        }
    }

    @Test
    void aConnectionHoldingTheSessionsStateIsReplayedOverNotReset() {
        // time_zone set again mid-transaction: a reset would roll the transaction back
        SessionVariables actual = state("shop", "sql_mode = ''", "time_zone = '+01:00'");
        SessionVariables desired = state("shop", "sql_mode = ''", "time_zone = '+02:00'");
        assertThat(SessionAlignment.of(actual, desired, false, SessionAlignment.KEEP_LAST_INSERT_ID, false)
                        .reset())
                .as("a connection holding nothing of the session is reset")
                .isTrue();
        SessionAlignment kept = SessionAlignment.of(actual, desired, false, SessionAlignment.KEEP_LAST_INSERT_ID, true);
        assertThat(kept.reset()).isFalse();
        assertThat(commands(kept)).containsExactly("COM_QUERY SET sql_mode = '', time_zone = '+02:00'");
    }

    @Test
    void characterSetVariablesASetNamesOverridesAreReplayedOverByIt() {
        SessionVariables actual = state("shop", "character_set_results = latin1");
        SessionVariables desired = state("shop", "names = utf8mb4");
        SessionAlignment kept = SessionAlignment.of(actual, desired, false, SessionAlignment.KEEP_LAST_INSERT_ID, true);
        assertThat(commands(kept)).containsExactly("COM_QUERY SET names = utf8mb4");
    }

    @Test
    void aVariableNoReplayCanTakeBackCannotBeAlignedWithoutAReset() {
        SessionVariables actual = state("shop", "sql_mode = ''", "time_zone = '+01:00'");
        SessionVariables desired = state("shop", "sql_mode = 'ANSI'");
        assertThat(SessionAlignment.of(actual, desired, false, SessionAlignment.KEEP_LAST_INSERT_ID, true))
                .isNull();
    }
}
