package io.shardgate.router.lease;

import static io.shardgate.router.lease.SessionStates.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.fakebackend.RecordingBackend;
import io.shardgate.router.fakebackend.Reply;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.SessionVariables;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A borrowed connection's server session is brought to the client session's state with exactly
 * the commands {@link SessionAlignment} names, one after the other, and with none when they match.
 */
class BackendLeaseAlignmentTest {
    private final RecordingBackend backend = new RecordingBackend();
    private final RecordingOwner owner = new RecordingOwner(backend.client());
    private final BackendLease lease =
            new BackendLease(backend.hostgroup(), false, backend.loop(), backend.kind(), owner);

    @AfterEach
    void close() {
        lease.close();
        backend.close();
    }

    private Acquired acquire(SessionVariables desired) {
        Acquired acquired = new Acquired();
        lease.acquire(desired, acquired);
        return acquired;
    }

    @Test
    void aConnectionInTheWantedStateIsLentWithoutACommand() {
        RecordingBackend.Connection c = backend.connection(state("shop", "sql_mode = ''"));
        long epoch = lease.epoch();

        Acquired acquired = acquire(state("shop", "sql_mode = ''"));

        assertThat(acquired.calls).isEqualTo(1);
        assertThat(acquired.error).isNull();
        assertThat(acquired.connection).isSameAs(c.pooled()).isSameAs(lease.current());
        assertThat(backend.sent()).isEmpty();
        assertThat(backend.idle()).isZero();
        assertThat(lease.epoch()).as("a borrow, no command of the router's").isEqualTo(epoch + 1);
    }

    @Test
    void theSchemaChangeComesFirstThenTheMissingAssignmentsInOneSet() {
        RecordingBackend.Connection c = backend.connection(state("shop", "sql_mode = ''"));
        SessionVariables desired = state("inventory", "sql_mode = ''", "time_zone = '+00:00'", "names = utf8mb4");

        Acquired acquired = acquire(desired);
        assertThat(backend.sent()).containsExactly("COM_INIT_DB inventory");
        assertThat(acquired.heard()).as("not before the server answered").isFalse();
        backend.serve();

        assertThat(backend.sent())
                .containsExactly("COM_INIT_DB inventory", "COM_QUERY SET time_zone = '+00:00', names = utf8mb4");
        assertThat(acquired.connection).isSameAs(c.pooled());
        assertThat(c.pooled().state()).isSameAs(desired);
        assertThat(backend.relayed())
                .as("the alignment's answers are the router's own")
                .isEmpty();
        assertThat(owner.events).isEmpty();

        backend.clearSent();
        Acquired again = acquire(desired);
        assertThat(again.connection).isSameAs(c.pooled());
        assertThat(backend.sent()).as("aligned already").isEmpty();
    }

    @Test
    void assignmentsThatAreNotAPrefixOfTheWantedOnesResetTheSessionAndReplayItWholeOneStepAtATime() {
        RecordingBackend.Connection c = backend.connection(state("shop", "time_zone = '+00:00'"));
        c.pooled().rememberStatement("SELECT ?", 7);
        SessionVariables desired = state("shop", "sql_mode = 'ANSI'", "SESSION TRANSACTION READ ONLY");

        Acquired acquired = acquire(desired);
        assertThat(backend.sent()).containsExactly("COM_RESET_CONNECTION");
        backend.serveOne();
        assertThat(backend.sent()).containsExactly("COM_RESET_CONNECTION", "COM_INIT_DB shop");
        backend.serveOne();
        backend.serveOne();
        assertThat(acquired.heard()).isFalse();
        backend.serveOne();

        assertThat(backend.sent())
                .containsExactly(
                        "COM_RESET_CONNECTION",
                        "COM_INIT_DB shop",
                        "COM_QUERY SET SESSION TRANSACTION READ ONLY",
                        "COM_QUERY SET sql_mode = 'ANSI'");
        assertThat(acquired.connection).isSameAs(c.pooled());
        assertThat(c.pooled().statementId("SELECT ?"))
                .as("the reset deallocated it")
                .isNull();
    }

    @Test
    void aFailedStepEndsTheAlignmentClosesTheConnectionAndAnswersTheServersError() {
        RecordingBackend.Connection c = backend.connection(state("shop"));
        backend.answer(
                "COM_QUERY SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
                Reply.err(
                        1568,
                        "25001",
                        "Transaction characteristics can't be changed while a transaction is in progress"));

        Acquired acquired =
                acquire(state("shop", "SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", "time_zone = 'UTC'"));
        backend.serve();

        assertThat(backend.sent())
                .as("nothing after the failed step")
                .containsExactly("COM_QUERY SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
        assertThat(acquired.connection).isNull();
        assertThat(acquired.error.code()).isEqualTo(1568);
        assertThat(acquired.error.sqlState()).isEqualTo("25001");
        assertThat(lease.current()).isNull();
        assertThat(c.open()).as("a half-aligned session is never reused").isFalse();
        assertThat(backend.idle()).isZero();
        assertThat(owner.events).as("the router closed it: no loss to report").isEmpty();
    }

    @Test
    void anotherSessionsWarningsAreClearedBeforeAnythingElse() {
        RecordingBackend.Connection c = backend.connection(state("shop"));
        c.pooled().relay().diagnosticsDirty(true);

        Acquired acquired = acquire(state("shop", "sql_mode = ''"));
        backend.serve();

        assertThat(backend.sent()).containsExactly("COM_QUERY " + DiagnosticsHold.CLEAR, "COM_QUERY SET sql_mode = ''");
        assertThat(acquired.connection).isSameAs(c.pooled());
        assertThat(c.pooled().relay().diagnosticsDirty()).isFalse();
    }

    /** One statement of {@code on} as an executor runs it (acquire, send, relay, end); returns its connection. */
    private PooledConnection statement(BackendLease on, String sql, Reply reply, boolean insert) {
        Acquired acquired = new Acquired();
        on.acquire(state("shop"), acquired);
        backend.serve();
        assertThat(acquired.connection).isNotNull();
        backend.answer("COM_QUERY " + sql, reply);
        backend.clientQuery(acquired.connection, sql);
        backend.serve();
        on.afterResponse(Reply.AUTOCOMMIT, insert);
        return acquired.connection;
    }

    @Test
    void anotherSessionsLastInsertIdIsClearedBeforeTheConnectionServesThisOne() {
        RecordingBackend.Connection c = backend.connection(state("shop"));
        RecordingOwner earlierOwner = new RecordingOwner(backend.client());
        BackendLease earlier =
                new BackendLease(backend.hostgroup(), false, backend.loop(), backend.kind(), earlierOwner);
        // an earlier client session's INSERT generated a key in that server session; then it left
        statement(earlier, "INSERT INTO t VALUES (NULL)", Reply.ok(1, 42, Reply.AUTOCOMMIT, 0), true);
        earlier.close();
        assertThat(c.pooled().holdsLastInsertId(0))
                .as("the INSERT may have set it")
                .isFalse();
        assertThat(earlierOwner.lastInsertId.holder()).isSameAs(earlier);
        assertThat(backend.idle()).isEqualTo(1);
        backend.clearSent();
        assertThat(backend.relayed()).as("the INSERT's OK, to its client").isNotEmpty();

        Acquired acquired = acquire(state("shop"));
        assertThat(acquired.heard()).as("not before the server answered").isFalse();
        backend.serve();

        assertThat(backend.sent()).containsExactly("COM_QUERY DO LAST_INSERT_ID(0)");
        assertThat(acquired.connection).isSameAs(c.pooled());
        assertThat(c.pooled().holdsLastInsertId(0)).isTrue();
        assertThat(backend.relayed()).as("the router's own answer").isEmpty();
    }

    @Test
    void theSessionsLastInsertIdIsReadBeforeItsConnectionGoesBackAndGivenToTheNextOne() {
        RecordingBackend.Connection c = backend.connection(state("shop"));
        backend.answer(
                "COM_QUERY SELECT LAST_INSERT_ID()",
                Reply.rows(List.of("LAST_INSERT_ID()"), Reply.AUTOCOMMIT, List.of(List.of("7"))));
        // LAST_INSERT_ID(expr) reports no insert id: the executor says the statement may set one
        lease.settingLastInsertId();
        statement(
                lease,
                "SELECT LAST_INSERT_ID(7)",
                Reply.rows(List.of("LAST_INSERT_ID(7)"), Reply.AUTOCOMMIT, List.of(List.of("7"))),
                false);
        assertThat(lease.readWaits())
                .as("until the next statement or a quiet second")
                .isTrue();
        backend.advanceTime(BackendLease.INSERT_ID_HOLD_MILLIS);
        backend.serve();
        assertThat(backend.sent())
                .as("read before the connection goes back")
                .endsWith("COM_QUERY SELECT LAST_INSERT_ID()");
        assertThat(lease.current()).as("then nothing pins the session").isNull();
        assertThat(owner.lastInsertId.holder()).isNull();
        assertThat(owner.lastInsertId.wanted()).isEqualTo(7);
        assertThat(c.pooled().holdsLastInsertId(7)).isTrue();
        backend.clearSent();

        statement(lease, "SELECT 1", Reply.rows(List.of("1"), Reply.AUTOCOMMIT, List.of(List.of("1"))), false);
        assertThat(backend.sent()).as("it holds the value: nothing to give").containsExactly("COM_QUERY SELECT 1");

        // another client session takes that connection: it gets its own value (0) first
        RecordingOwner otherOwner = new RecordingOwner(backend.client());
        BackendLease other = new BackendLease(backend.hostgroup(), false, backend.loop(), backend.kind(), otherOwner);
        backend.clearSent();
        statement(other, "SELECT 2", Reply.rows(List.of("2"), Reply.AUTOCOMMIT, List.of(List.of("2"))), false);
        assertThat(backend.sent()).containsExactly("COM_QUERY DO LAST_INSERT_ID(0)", "COM_QUERY SELECT 2");

        // and this session, back on it, gets 7 again
        backend.clearSent();
        statement(lease, "SELECT 3", Reply.rows(List.of("3"), Reply.AUTOCOMMIT, List.of(List.of("3"))), false);
        assertThat(backend.sent()).containsExactly("COM_QUERY DO LAST_INSERT_ID(7)", "COM_QUERY SELECT 3");
    }
}
