package io.shardgate.router.lease;

import static io.shardgate.router.lease.SessionStates.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.fakebackend.RecordingBackend;
import io.shardgate.router.fakebackend.Reply;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.SessionVariables;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When a lease keeps its connection and when it gives it back: after each statement unless a pin
 * holds, never with a response outstanding, after an INSERT only when the next statements or a quiet
 * second have passed, and when the client leaves only if it is clean.
 */
class BackendLeaseReleaseTest {
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private static final int IN_TRANSACTION = ServerStatus.SERVER_STATUS_IN_TRANS | AUTOCOMMIT;
    private static final SessionVariables SHOP = state("shop");

    private RecordingBackend backend = new RecordingBackend();
    private RecordingOwner owner = new RecordingOwner(backend.client());
    private BackendLease lease = new BackendLease(backend.hostgroup(), false, backend.loop(), backend.kind(), owner);

    @AfterEach
    void close() {
        lease.close();
        backend.close();
    }

    private void multiplexingOff() {
        backend.close();
        backend = new RecordingBackend("{multiplexing: false}", 0, false);
        owner = new RecordingOwner(backend.client());
        lease = new BackendLease(backend.hostgroup(), false, backend.loop(), backend.kind(), owner);
    }

    /** One statement as an executor runs it: acquire, send, relay the answer; returns the connection. */
    private PooledConnection statement(String sql, Reply reply) {
        Acquired acquired = new Acquired();
        lease.acquire(SHOP, acquired);
        backend.serve();
        assertThat(acquired.connection).isNotNull();
        backend.answer("COM_QUERY " + sql, reply);
        backend.clientQuery(acquired.connection, sql);
        backend.serve();
        return acquired.connection;
    }

    /** The read of the session's LAST_INSERT_ID() before the connection goes back: answered 42. */
    private void scriptLastInsertIdRead() {
        backend.answer(
                "COM_QUERY SELECT LAST_INSERT_ID()",
                Reply.rows(List.of("LAST_INSERT_ID()"), AUTOCOMMIT, List.of(List.of("42"))));
    }

    /** The connection went back once its LAST_INSERT_ID() was read and kept. */
    private void readThenReleased() {
        assertThat(lease.current()).as("not before the read's answer").isNotNull();
        backend.serve();
        assertThat(backend.sent()).endsWith("COM_QUERY SELECT LAST_INSERT_ID()");
        assertThat(owner.lastInsertId.wanted()).isEqualTo(42);
        assertThat(lease.current()).isNull();
        assertThat(backend.idle()).isEqualTo(1);
    }

    @Test
    void aConnectionGoesBackAfterItsStatementWhenNothingPinsTheSession() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        statement("SELECT 1", Reply.rows(List.of("1"), AUTOCOMMIT, List.of(List.of("1"))));

        assertThat(owner.events).containsExactly(new RecordingOwner.Completed(lease, AUTOCOMMIT, false));
        assertThat(backend.relayed())
                .as("the result set, starting with its column count")
                .startsWith(1, 0, 0, 1, 1);
        assertThat(lease.current())
                .as("kept until the executor says the statement ended")
                .isSameAs(c.pooled());

        lease.afterResponse(AUTOCOMMIT, false);

        assertThat(lease.current()).isNull();
        assertThat(backend.idle()).isEqualTo(1);
        assertThat(c.open()).isTrue();
        assertThat(backend.sent()).containsExactly("COM_QUERY SELECT 1");
    }

    @Test
    void aConnectionReleasedInsideTheCompletionDoesNotFlushTheResponseBeforeTheOwnerIsDone() {
        backend.connection(SHOP);
        byte[][] seenInsideCompletion = new byte[1][];
        owner.onComplete = l -> {
            l.afterResponse(AUTOCOMMIT, false); // back to the pool, as the command in flight does
            // the session's work after a response (the result cache's invalidation of a write)
            // runs here: the client must not have the response yet
            seenInsideCompletion[0] = backend.relayed();
        };
        statement("UPDATE t SET a = 1", Reply.ok(1, 0, AUTOCOMMIT, 0));

        assertThat(backend.idle()).isEqualTo(1);
        assertThat(seenInsideCompletion[0]).as("flushed inside the completion").isEmpty();
        assertThat(backend.relayed()).as("the OK, flushed with the read batch").startsWith(7, 0, 0, 1, 0);
    }

    @Test
    void aPinKeepsTheConnectionForTheNextStatementsUntilItIsLifted() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        statement("SET @a = 1", Reply.ok());
        lease.pin(EnumSet.of(PinReason.USER_VARIABLE));
        lease.afterResponse(AUTOCOMMIT, false);
        assertThat(lease.current()).isSameAs(c.pooled());
        assertThat(lease.pins()).containsExactly(PinReason.USER_VARIABLE);
        assertThat(backend.idle()).isZero();

        assertThat(statement("SELECT @a", Reply.rows(List.of("@a"), AUTOCOMMIT, List.of(List.of("1")))))
                .isSameAs(c.pooled());
        lease.afterResponse(AUTOCOMMIT, false);
        lease.releaseIfFree();
        assertThat(lease.current()).isSameAs(c.pooled());
        assertThat(backend.sent()).containsExactly("COM_QUERY SET @a = 1", "COM_QUERY SELECT @a");

        lease.unpin(PinReason.USER_VARIABLE);
        lease.releaseIfFree();
        assertThat(lease.current()).isNull();
        assertThat(backend.idle()).isEqualTo(1);
    }

    @Test
    void anOpenTransactionKeepsTheConnectionUntilItEnds() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        statement("BEGIN", Reply.ok(IN_TRANSACTION));
        lease.afterResponse(IN_TRANSACTION, false);
        assertThat(lease.current()).isSameAs(c.pooled());
        assertThat(lease.inTransaction()).isTrue();
        assertThat(lease.pins()).containsExactly(PinReason.TRANSACTION);

        statement("COMMIT", Reply.ok());
        lease.afterResponse(AUTOCOMMIT, false);
        assertThat(lease.current()).isNull();
        assertThat(backend.idle()).isEqualTo(1);
    }

    @Test
    void aConnectionWithAResponseOutstandingStaysAndAKilledOneIsClosedRatherThanPooled() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        Acquired acquired = new Acquired();
        lease.acquire(SHOP, acquired);
        backend.clientQuery(acquired.connection, "SELECT SLEEP(100)");

        lease.releaseIfFree();
        assertThat(lease.current()).as("its answer is still to come").isSameAs(c.pooled());
        assertThat(lease.running().threadId())
                .as("the statement's server thread, for the process list")
                .isEqualTo(c.pooled().connection().handshake().connectionId());
        assertThat(lease.killTarget().threadId())
                .isEqualTo(c.pooled().connection().handshake().connectionId());

        backend.answer("COM_QUERY SELECT SLEEP(100)", Reply.err(1317, "70100", "Query execution was interrupted"));
        backend.serve();
        assertThat(owner.events).containsExactly(new RecordingOwner.Completed(lease, AUTOCOMMIT, true));
        lease.afterResponse(AUTOCOMMIT, false);

        assertThat(lease.current()).isNull();
        assertThat(backend.idle())
                .as("a KILL may still land on its server thread")
                .isZero();
        assertThat(c.open()).isFalse();
    }

    @Test
    void aConnectionWithNothingOutstandingIsNoKillTarget() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        statement("SELECT 1", Reply.rows(List.of("1"), AUTOCOMMIT, List.of(List.of("1"))));

        assertThat(lease.killTarget()).isNull();
        assertThat(lease.running()).isNull();
        lease.afterResponse(AUTOCOMMIT, false);
        assertThat(backend.idle()).isEqualTo(1);
        assertThat(c.open()).isTrue();
    }

    @Test
    void anInsertKeepsItsConnectionForTheNextFiveStatements() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        scriptLastInsertIdRead();
        statement("INSERT INTO t VALUES (NULL)", Reply.ok(1, 42, AUTOCOMMIT, 0));
        lease.afterResponse(AUTOCOMMIT, true);
        assertThat(lease.pins()).containsExactly(PinReason.LAST_INSERT_ID);

        for (int i = 1; i < LeasePins.INSERT_ID_HOLD; i++) {
            statement("SELECT " + i, Reply.rows(List.of("x"), AUTOCOMMIT, List.of()));
            lease.afterResponse(AUTOCOMMIT, false);
            assertThat(lease.current()).as("after statement %d", i).isSameAs(c.pooled());
        }
        statement("SELECT 5", Reply.rows(List.of("5"), AUTOCOMMIT, List.of(List.of("5"))));
        lease.afterResponse(AUTOCOMMIT, false);
        assertThat(lease.readWaits())
                .as("the hold is over; the read waits for the next statement (or a quiet second)")
                .isTrue();
        assertThat(lease.current()).isSameAs(c.pooled());
        assertThat(backend.sent()).doesNotContain("COM_QUERY SELECT LAST_INSERT_ID()");

        backend.advanceTime(BackendLease.INSERT_ID_HOLD_MILLIS);
        readThenReleased();
    }

    @Test
    void anInsertsConnectionGoesBackOnceTheSessionIsQuietForTheHold() {
        backend.connection(SHOP);
        scriptLastInsertIdRead();
        statement("INSERT INTO t VALUES (NULL)", Reply.ok(1, 42, AUTOCOMMIT, 0));
        lease.afterResponse(AUTOCOMMIT, true);

        backend.advanceTime(BackendLease.INSERT_ID_HOLD_MILLIS - 1);
        assertThat(lease.current()).isNotNull();
        backend.advanceTime(1);

        readThenReleased();
        assertThat(lease.pins()).isEmpty();
    }

    @Test
    void aStatementDuringTheHoldRestartsTheQuietTime() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        scriptLastInsertIdRead();
        statement("INSERT INTO t VALUES (NULL)", Reply.ok(1, 42, AUTOCOMMIT, 0));
        lease.afterResponse(AUTOCOMMIT, true);
        backend.advanceTime(BackendLease.INSERT_ID_HOLD_MILLIS / 2);
        statement("SELECT 1", Reply.rows(List.of("1"), AUTOCOMMIT, List.of(List.of("1"))));
        lease.afterResponse(AUTOCOMMIT, false);

        backend.advanceTime(BackendLease.INSERT_ID_HOLD_MILLIS / 2);
        assertThat(lease.current())
                .as("the insert's timer saw the session move on")
                .isSameAs(c.pooled());
        backend.advanceTime(BackendLease.INSERT_ID_HOLD_MILLIS / 2);
        readThenReleased();
    }

    @Test
    void withMultiplexingOffTheSessionKeepsItsConnectionAndGivesItBackCleanWhenItLeaves() {
        multiplexingOff();
        RecordingBackend.Connection c = backend.connection(SHOP);
        statement("SELECT 1", Reply.rows(List.of("1"), AUTOCOMMIT, List.of(List.of("1"))));
        lease.afterResponse(AUTOCOMMIT, false);
        assertThat(lease.current()).isSameAs(c.pooled());
        assertThat(lease.pins()).containsExactly(PinReason.MULTIPLEXING_OFF);

        lease.close();

        assertThat(lease.current()).isNull();
        assertThat(backend.idle()).isEqualTo(1);
        assertThat(c.open()).isTrue();
    }

    @Test
    void aClientLeavingInATransactionClosesItsConnection() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        statement("BEGIN", Reply.ok(IN_TRANSACTION));
        lease.afterResponse(IN_TRANSACTION, false);

        lease.close();

        assertThat(lease.current()).isNull();
        assertThat(backend.idle()).isZero();
        assertThat(c.open())
                .as("its transaction must not reach another session")
                .isFalse();
        assertThat(owner.events).containsExactly(new RecordingOwner.Completed(lease, IN_TRANSACTION, false));
    }

    @Test
    void aClientLeavingWithAStatementRunningClosesItsConnection() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        Acquired acquired = new Acquired();
        lease.acquire(SHOP, acquired);
        backend.clientQuery(acquired.connection, "SELECT SLEEP(100)");

        lease.close();

        assertThat(c.open()).isFalse();
        assertThat(backend.idle()).isZero();
    }

    @Test
    void aWriteStartsTheReadYourWritesWindowOfItsLease() {
        backend.connection(SHOP);
        assertThat(lease.wroteWithin(60_000, System.nanoTime())).isFalse();

        lease.writing();
        assertThat(lease.writingStatement()).isTrue();
        statement("UPDATE t SET a = 1", Reply.ok(1, 0, AUTOCOMMIT, 0));
        lease.afterResponse(AUTOCOMMIT, false);
        long now = System.nanoTime();

        assertThat(lease.writingStatement()).isFalse();
        assertThat(lease.wroteWithin(60_000, now)).isTrue();
        assertThat(lease.wroteWithin(1_000, now + TimeUnit.SECONDS.toNanos(2))).isFalse();

        BackendLease reader = new BackendLease(backend.hostgroup(), true, backend.loop(), backend.kind(), owner);
        assertThat(reader.wroteWithin(60_000, now))
                .as("another lease of the session")
                .isFalse();
    }
}
