package io.shardgate.router.lease;

import static io.shardgate.router.lease.SessionStates.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.fakebackend.RecordingBackend;
import io.shardgate.router.fakebackend.Reply;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.SessionVariables;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client's prepared-statement commands through the lease: a COM_STMT_PREPARE_OK reaches the
 * command in flight naming the lease (which rewrites statement ids there) and the client; a
 * COM_STMT_CLOSE has no answer and leaves the connection free to go back.
 */
class BackendLeasePreparedTest {
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private static final SessionVariables SHOP = state("shop");

    private final RecordingBackend backend = new RecordingBackend();
    private final RecordingOwner owner = new RecordingOwner(backend.client());
    private final BackendLease lease =
            new BackendLease(backend.hostgroup(), false, backend.loop(), backend.kind(), owner);

    @AfterEach
    void close() {
        lease.close();
        backend.close();
    }

    private PooledConnection borrowed() {
        Acquired acquired = new Acquired();
        lease.acquire(SHOP, acquired);
        return acquired.connection;
    }

    @Test
    void aPreparesOkReachesTheOwnerNamingTheLeaseAndThenTheClient() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        PooledConnection connection = borrowed();
        backend.answer("COM_STMT_PREPARE SELECT ? + ?", Reply.prepared(263, 2));

        backend.clientCommand(
                connection,
                Response.PREPARE,
                out -> out.writeByte(Command.COM_STMT_PREPARE.code())
                        .writeCharSequence("SELECT ? + ?", StandardCharsets.UTF_8));
        backend.serve();

        assertThat(owner.events)
                .containsExactly(
                        new RecordingOwner.PrepareOk(lease), new RecordingOwner.Completed(lease, AUTOCOMMIT, false));
        byte[] relayed = backend.relayed();
        assertThat(relayed)
                .as("COM_STMT_PREPARE_OK, two parameter definitions, EOF")
                .isNotEmpty();
        assertThat(relayed[4]).isZero();
        assertThat(c.received()).containsExactly("COM_STMT_PREPARE SELECT ? + ?");
    }

    @Test
    void aStatementCloseGetsNoAnswerAndTheConnectionGoesBack() {
        RecordingBackend.Connection c = backend.connection(SHOP);
        PooledConnection connection = borrowed();

        backend.clientCommand(
                connection,
                null,
                out -> out.writeByte(Command.COM_STMT_CLOSE.code()).writeIntLE(263));
        assertThat(backend.serve()).as("nothing to answer").isZero();
        lease.afterResponse(lease.statusFlags(), false);

        assertThat(backend.sent()).containsExactly("COM_STMT_CLOSE 263");
        assertThat(lease.current()).isNull();
        assertThat(backend.idle()).isEqualTo(1);
        assertThat(c.open()).isTrue();
        assertThat(owner.events).isEmpty();
    }
}
