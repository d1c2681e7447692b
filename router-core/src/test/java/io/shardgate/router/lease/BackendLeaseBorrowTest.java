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
 * Borrowing through the hostgroup's pool: a server that takes no work and a closed pool are
 * answered at once without a command sent, and a session waiting for a connection another session
 * holds gets it when that one is done, aligned to its own state.
 */
class BackendLeaseBorrowTest {
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private static final SessionVariables SHOP = state("shop", "sql_mode = ''");

    private final RecordingBackend backend = new RecordingBackend("{max_connections: 1}", 0, false);
    private final RecordingOwner owner = new RecordingOwner(backend.client());
    private final BackendLease lease =
            new BackendLease(backend.hostgroup(), false, backend.loop(), backend.kind(), owner);

    @AfterEach
    void close() {
        lease.close();
        backend.close();
    }

    @Test
    void aServerThatTakesNoWorkIsAnsweredAtOnce() {
        backend.connection(SHOP);
        backend.hostgroup().writer().pool().refuseWork("SHUNNED");

        Acquired acquired = new Acquired();
        lease.acquire(SHOP, acquired);

        assertThat(acquired.calls).isEqualTo(1);
        assertThat(acquired.connection).isNull();
        assertThat(acquired.error.code()).isEqualTo(9002);
        assertThat(acquired.error.message()).isEqualTo("hostgroup 10: SHUNNED");
        assertThat(backend.sent()).isEmpty();
        assertThat(lease.current()).isNull();
    }

    @Test
    void aClosedPoolAnswersShutdown() {
        backend.connection(SHOP);
        backend.hostgroup().writer().pool().close();

        Acquired acquired = new Acquired();
        lease.acquire(SHOP, acquired);

        assertThat(acquired.error.code()).isEqualTo(1053);
        assertThat(acquired.error.message()).isEqualTo("Server shutdown in progress");
        assertThat(backend.sent()).isEmpty();
    }

    @Test
    void aSessionWaitingForTheOnlyConnectionGetsItWhenTheOtherIsDoneAlignedToItsOwnState() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        Acquired first = new Acquired();
        lease.acquire(SHOP, first);
        backend.clientQuery(first.connection, "SELECT 1");

        RecordingOwner otherOwner = new RecordingOwner(backend.client());
        BackendLease other = new BackendLease(backend.hostgroup(), false, backend.loop(), backend.kind(), otherOwner);
        SessionVariables utc = state("shop", "sql_mode = ''", "time_zone = 'UTC'");
        Acquired second = new Acquired();
        other.acquire(utc, second);
        assertThat(second.heard()).as("max_connections is 1 and it is busy").isFalse();

        backend.answer("COM_QUERY SELECT 1", Reply.rows(List.of("1"), AUTOCOMMIT, List.of(List.of("1"))));
        backend.serve();
        backend.relayed();
        assertThat(second.heard())
                .as("not before the first session is done with it")
                .isFalse();
        lease.afterResponse(AUTOCOMMIT, false);
        backend.serve();

        assertThat(second.connection).isSameAs(c.pooled());
        assertThat(other.current()).isSameAs(c.pooled());
        assertThat(lease.current()).isNull();
        assertThat(backend.sent()).containsExactly("COM_QUERY SELECT 1", "COM_QUERY SET time_zone = 'UTC'");
        assertThat(owner.events).containsExactly(new RecordingOwner.Completed(lease, AUTOCOMMIT, false));
        assertThat(otherOwner.events)
                .as("the alignment's answer is the router's")
                .isEmpty();
        other.close();
    }
}
