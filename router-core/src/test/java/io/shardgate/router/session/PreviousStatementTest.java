package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.Command;
import org.junit.jupiter.api.Test;

class PreviousStatementTest {
    private final Object lease = new Object();
    private final PreviousStatement previous = new PreviousStatement();

    @Test
    void theServerKnowsOnlyOnTheConnectionThatRanThePreviousStatementHeldSinceThen() {
        previous.commandStarts(Command.COM_QUERY);
        previous.ranOn(lease, 3, PreviousStatement.UNKNOWN);
        previous.commandStarts(Command.COM_QUERY);
        assertThat(previous.serverKnows(lease, true, 3)).isTrue();
        assertThat(previous.serverKnows(lease, false, 3))
                .as("released to the pool")
                .isFalse();
        assertThat(previous.serverKnows(lease, true, 4))
                .as("released and taken again")
                .isFalse();
        assertThat(previous.serverKnows(new Object(), true, 3))
                .as("another hostgroup")
                .isFalse();
        assertThat(previous.rowCount()).isEqualTo(PreviousStatement.UNKNOWN);
    }

    @Test
    void getDiagnosticsLeavesThePreviousOutcomeAsItWas() {
        previous.commandStarts(Command.COM_QUERY);
        previous.ranOn(lease, 3, 5); // INSERT of 5 rows
        previous.commandStarts(Command.COM_QUERY); // GET DIAGNOSTICS @a = ROW_COUNT
        previous.unchanged();
        previous.ranOn(lease, 4, 0); // its own OK (0 rows) records nothing
        previous.commandStarts(Command.COM_QUERY); // GET DIAGNOSTICS @b = ROW_COUNT
        assertThat(previous.rowCount()).isEqualTo(5);
        assertThat(previous.serverKnows(lease, true, 3)).isTrue();
        assertThat(previous.serverKnows(lease, true, 4))
                .as("a statement of the router's ran there since")
                .isFalse();
    }

    @Test
    void aStatementThatRecordsNothingLeavesNothingKnown() {
        previous.commandStarts(Command.COM_QUERY);
        previous.answered(PreviousStatement.UNKNOWN, 12);
        previous.commandStarts(Command.COM_QUERY); // answered by a path that records nothing (a cache hit)
        assertThat(previous.rowCount()).isEqualTo(12);
        previous.commandStarts(Command.COM_QUERY);
        assertThat(previous.rowCount()).isEqualTo(PreviousStatement.UNKNOWN);
        assertThat(previous.serverKnows(lease, true, 0)).isFalse();
    }

    @Test
    void commandsThatAreNotStatementsLeaveThePreviousOneReadableAndRecordNothing() {
        previous.commandStarts(Command.COM_QUERY);
        previous.answered(PreviousStatement.UNKNOWN, 5);
        previous.commandStarts(Command.COM_STMT_PREPARE);
        previous.ranOn(lease, 1, PreviousStatement.UNKNOWN); // the PREPARE's own response: not a statement's outcome
        previous.commandStarts(Command.COM_STMT_CLOSE);
        previous.commandStarts(Command.COM_STMT_EXECUTE);
        assertThat(previous.rowCount()).isEqualTo(5);
        assertThat(previous.serverKnows(lease, true, 1)).isFalse();
    }

    @Test
    void aPingMakesRowCountZeroAsMariaDbDoes() {
        // MariaDB: INSERT failing with 1062, then COM_PING (a driver's isValid()), then ROW_COUNT() is 0, not -1
        previous.commandStarts(Command.COM_QUERY);
        previous.ranOn(lease, 1, PreviousStatement.UNKNOWN);
        previous.commandStarts(Command.COM_PING);
        previous.commandStarts(Command.COM_QUERY);
        assertThat(previous.rowCount()).isZero();
        // the server's own value is the one before the ping, which the router answered: not asked
        assertThat(previous.serverKnows(lease, true, 1)).isFalse();
    }

    @Test
    void theFirstRecordOfAStatementCounts() {
        previous.commandStarts(Command.COM_QUERY);
        previous.answered(PreviousStatement.UNKNOWN, 2);
        previous.ranOn(lease, 1, PreviousStatement.UNKNOWN);
        previous.commandStarts(Command.COM_QUERY);
        assertThat(previous.rowCount()).isEqualTo(2);
        assertThat(previous.serverKnows(lease, true, 1)).isFalse();
    }

    @Test
    void aResetForgetsEverything() {
        previous.commandStarts(Command.COM_QUERY);
        previous.answered(PreviousStatement.UNKNOWN, 2);
        previous.commandStarts(Command.COM_QUERY);
        previous.reset();
        assertThat(previous.rowCount()).isEqualTo(PreviousStatement.UNKNOWN);
    }

    @Test
    void recognisesTheSelectsTheRouterMayAnswer() {
        assertThat(PreviousStatement.selectRowCount("SELECT ROW_COUNT()")).isEqualTo("ROW_COUNT()");
        assertThat(PreviousStatement.selectRowCount("select row_count() n;")).isEqualTo("n");
        assertThat(PreviousStatement.selectRowCount("SELECT ROW_COUNT(), 1")).isNull();
        assertThat(PreviousStatement.selectFoundRows("SELECT FOUND_ROWS() AS 'total'"))
                .isEqualTo("total");
        assertThat(PreviousStatement.selectFoundRows("SELECT ROW_COUNT()")).isNull();
    }

    @Test
    void theRowCountAServerLeavesFollowsTheResponse() {
        assertThat(PreviousStatement.rowCountAfter(false, 1, 1, 3)).isEqualTo(3); // an UPDATE of 3 rows
        assertThat(PreviousStatement.rowCountAfter(false, 1, 1, 0)).isZero(); // DDL, SET, DO
        assertThat(PreviousStatement.rowCountAfter(false, 1, 0, 0)).isEqualTo(-1); // a result set, even empty
        assertThat(PreviousStatement.rowCountAfter(true, 0, 0, 0)).isEqualTo(-1); // an error
        assertThat(PreviousStatement.rowCountAfter(true, 1, 0, 0)).isEqualTo(-1); // an error after a result set
        // several results: the last statement's, which the router does not single out
        assertThat(PreviousStatement.rowCountAfter(false, 2, 1, 5)).isEqualTo(PreviousStatement.UNKNOWN);
        assertThat(PreviousStatement.rowCountAfter(false, 0, 0, 0)).isEqualTo(PreviousStatement.UNKNOWN);
    }

    @Test
    void aStatementsRowCountOnOneShardIsKnownToTheNextStatement() {
        PreviousStatement previous = new PreviousStatement();
        Object lease = new Object();
        previous.commandStarts(Command.COM_QUERY);
        previous.ranOn(lease, 1, 2);
        previous.commandStarts(Command.COM_QUERY);
        assertThat(previous.rowCount()).isEqualTo(2);
    }
}
