package io.shardgate.router.lease;

import static io.shardgate.router.lease.SessionStates.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.fakebackend.RecordingBackend;
import io.shardgate.router.fakebackend.Reply;
import io.shardgate.router.session.SessionVariables;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A backend lost or silent mid-command reaches the command in flight ({@link LeaseOwner}) with the
 * lease, whether part of a packet reached the client, and the sequence id the client expects next.
 */
class BackendLeaseLossTest {
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private static final SessionVariables SHOP = state("shop");
    /** Query timeout of the connections: the relay checks the silence every quarter of it. */
    private static final int TIMEOUT_MILLIS = 1000;

    private final RecordingBackend backend = new RecordingBackend("{}", TIMEOUT_MILLIS, false);
    private final RecordingOwner owner = new RecordingOwner(backend.client());
    private final BackendLease lease =
            new BackendLease(backend.hostgroup(), false, backend.loop(), backend.kind(), owner);

    @AfterEach
    void close() {
        lease.discard();
        backend.close();
    }

    /**
     * A result set of one column "a" and one row "hello world": column count (5 bytes framed),
     * column definition (27), EOF (9) — 41 bytes before the row (4 + 12), then EOF.
     */
    private static Reply helloWorld() {
        return Reply.rows(List.of("a"), AUTOCOMMIT, List.of(List.of("hello world")));
    }

    private RecordingBackend.Connection running(String sql) {
        RecordingBackend.Connection c = backend.connection(SHOP);
        Acquired acquired = new Acquired();
        lease.acquire(SHOP, acquired);
        backend.clientQuery(acquired.connection, sql);
        return c;
    }

    @Test
    void aServerGoneBeforeAnsweringLeavesTheClientsSequenceAtOne() {
        RecordingBackend.Connection c = running("SELECT a FROM t");
        backend.answer("COM_QUERY SELECT a FROM t", Reply.lost());
        backend.serve();

        assertThat(owner.events)
                .containsExactly(new RecordingOwner.Lost(lease, "backend fake:3306#1 closed the connection", false, 1));
        assertThat(c.open()).isFalse();
        assertThat(backend.relayed()).isEmpty();
    }

    @Test
    void aServerGoneBetweenPacketsLeavesTheSequenceAfterTheLastOneRelayed() {
        running("SELECT a FROM t");
        backend.answer("COM_QUERY SELECT a FROM t", helloWorld().lostAfter(41));
        backend.serve();

        assertThat(owner.events)
                .containsExactly(new RecordingOwner.Lost(lease, "backend fake:3306#1 closed the connection", false, 4));
        assertThat(backend.relayed()).hasSize(41);
    }

    @Test
    void aServerGoneInsideARowSaysAPacketWasCut() {
        running("SELECT a FROM t");
        backend.answer("COM_QUERY SELECT a FROM t", helloWorld().lostAfter(41 + 4 + 5));
        backend.serve();

        assertThat(owner.events).hasSize(1);
        RecordingOwner.Lost lost = (RecordingOwner.Lost) owner.events.get(0);
        assertThat(lost.lease()).isSameAs(lease);
        assertThat(lost.midPacket()).as("no ERR can follow a cut packet").isTrue();
        backend.relayed();
    }

    @Test
    void aServerGoneDuringAlignmentReachesTheOwnerAndTheAcquireNeverAnswers() {
        RecordingBackend.Connection c = backend.connection(state("shop", "sql_mode = ''"));
        backend.answer("COM_QUERY SET time_zone = 'UTC'", Reply.lost());

        Acquired acquired = new Acquired();
        lease.acquire(state("shop", "sql_mode = ''", "time_zone = 'UTC'"), acquired);
        backend.serve();

        assertThat(owner.events)
                .as("nothing was relayed: an error for the client starts at 1")
                .containsExactly(new RecordingOwner.Lost(lease, "backend fake:3306#1 closed the connection", false, 1));
        assertThat(acquired.heard()).isFalse();
        assertThat(c.open()).isFalse();
    }

    @Test
    void aServerSilentPastTheQueryTimeoutIsClosedAndTheOwnerHearsIt() {
        RecordingBackend.Connection c = running("SELECT SLEEP(100)");
        backend.sent();

        for (int tick = 1; tick < 4; tick++) {
            backend.advanceTime(TIMEOUT_MILLIS / 4);
            assertThat(owner.events).as("after %d quarters", tick).isEmpty();
        }
        backend.advanceTime(TIMEOUT_MILLIS / 4);

        assertThat(owner.events)
                .containsExactly(new RecordingOwner.TimedOut(
                        lease, "backend fake:3306#1 sent nothing for 1000 ms (server.query_timeout_millis)", false, 1));
        assertThat(c.open()).isFalse();
    }

    @Test
    void aServerThatAnswersInTimeIsNotTimedOut() {
        running("SELECT SLEEP(1)");
        backend.advanceTime(TIMEOUT_MILLIS / 2);
        backend.answer("COM_QUERY SELECT SLEEP(1)", helloWorld());
        backend.serve();
        backend.advanceTime(TIMEOUT_MILLIS * 2);

        assertThat(owner.events).containsExactly(new RecordingOwner.Completed(lease, AUTOCOMMIT, false));
        backend.relayed();
    }

    @Test
    void anIdleConnectionTheServerClosesLeavesThePoolAndNoSessionHearsOfIt() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        c.lose();

        assertThat(backend.idle()).isZero();
        assertThat(owner.events).isEmpty();
    }
}
