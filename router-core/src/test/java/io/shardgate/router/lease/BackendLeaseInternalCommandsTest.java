package io.shardgate.router.lease;

import static io.shardgate.router.lease.SessionStates.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.fakebackend.RecordingBackend;
import io.shardgate.router.fakebackend.Reply;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.SessionVariables;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The router's own commands on a lease's connection: the multi-statement runner and its fallback,
 * a transaction's BEGIN carried to a hostgroup, the diagnostics count; their answers stay in the
 * router (nothing reaches the client or the command in flight).
 */
class BackendLeaseInternalCommandsTest {
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private static final int MORE = ServerStatus.SERVER_MORE_RESULTS_EXISTS;
    private static final int IN_TRANSACTION = ServerStatus.SERVER_STATUS_IN_TRANS | AUTOCOMMIT;
    private static final SessionVariables SHOP = state("shop");
    private static final List<String> XA_COMMIT = List.of("XA END 'x1'", "XA COMMIT 'x1' ONE PHASE");
    private static final String BOTH = "COM_QUERY XA END 'x1'; XA COMMIT 'x1' ONE PHASE";

    private RecordingBackend backend = new RecordingBackend();
    private RecordingOwner owner = new RecordingOwner(backend.client());
    private BackendLease lease = new BackendLease(backend.hostgroup(), false, backend.loop(), backend.kind(), owner);
    private RecordingBackend.Connection connection;
    /** What the callbacks of the router's commands heard, in order ("null" for no error). */
    private final List<String> heard = new ArrayList<>();

    @BeforeEach
    void borrow() {
        connection = backend.connection(SHOP);
        Acquired acquired = new Acquired();
        lease.acquire(SHOP, acquired);
        assertThat(acquired.connection).isSameAs(connection.pooled());
    }

    @AfterEach
    void close() {
        assertThat(backend.relayed())
                .as("nothing of the router's own reaches the client")
                .isEmpty();
        lease.close();
        backend.close();
    }

    private void hear(ErrPacket error) {
        heard.add(error == null ? "null" : String.valueOf(error.code()));
    }

    @Test
    void theRoutersStatementsGoInOneRoundTrip() {
        backend.answer(BOTH, Reply.ok(AUTOCOMMIT | MORE).then(Reply.ok()));

        lease.runStatements(XA_COMMIT, this::hear);
        backend.serve();

        assertThat(backend.sent()).containsExactly(BOTH);
        assertThat(heard).containsExactly("null");
        assertThat(owner.events).isEmpty();
    }

    @Test
    void aServerWithMultiStatementsOffGetsThemOneByOne() {
        backend.answer(BOTH, Reply.err(1064, "42000", "You have an error in your SQL syntax"));

        lease.runStatements(XA_COMMIT, this::hear);
        backend.serve();

        assertThat(backend.sent()).containsExactly(BOTH, "COM_QUERY XA END 'x1'", "COM_QUERY XA COMMIT 'x1' ONE PHASE");
        assertThat(heard).containsExactly("null");
    }

    @Test
    void oneByOneStopsAtTheFirstFailure() {
        backend.answer(BOTH, Reply.err(1064, "42000", "You have an error in your SQL syntax"));
        backend.answer("COM_QUERY XA END 'x1'", Reply.err(1397, "XAE04", "XAER_NOTA: Unknown XID"));

        lease.runStatements(XA_COMMIT, this::hear);
        backend.serve();

        assertThat(backend.sent()).containsExactly(BOTH, "COM_QUERY XA END 'x1'");
        assertThat(heard).containsExactly("1397");
    }

    @Test
    void theErrorThatStoppedTheStatementsIsHeardAndNothingRunsAgain() {
        backend.answer(
                BOTH,
                Reply.ok(AUTOCOMMIT | MORE)
                        .then(Reply.err(1399, "XAE07", "XAER_RMFAIL: The command cannot be executed")));

        lease.runStatements(XA_COMMIT, this::hear);
        backend.serve();

        assertThat(backend.sent()).containsExactly(BOTH);
        assertThat(heard).containsExactly("1399");
    }

    @Test
    void theSessionsTransactionReachesTheHostgroupBeforeItsFirstStatementOnly() {
        lease.close(); // give back the connection the set-up borrowed: the transaction starts on a fresh borrow
        backend.answer("COM_QUERY START TRANSACTION", Reply.ok(IN_TRANSACTION));
        backend.answer("COM_QUERY SAVEPOINT sp1", Reply.ok(IN_TRANSACTION));
        List<String> begin = List.of("START TRANSACTION", "SAVEPOINT sp1");

        Acquired acquired = new Acquired();
        lease.acquire(SHOP, begin, acquired);
        backend.serve();

        assertThat(backend.sent()).containsExactly("COM_QUERY START TRANSACTION", "COM_QUERY SAVEPOINT sp1");
        assertThat(acquired.connection).isSameAs(connection.pooled());
        assertThat(lease.inTransaction()).as("status flags of the answers").isTrue();

        Acquired next = new Acquired();
        lease.acquire(SHOP, begin, next);
        assertThat(next.connection).isSameAs(connection.pooled());
        assertThat(backend.sent()).as("the transaction is open there already").hasSize(2);
    }

    @Test
    void aFailedBeginAnswersItsErrorAndGivesTheConnectionBack() {
        lease.close();
        backend.answer(
                "COM_QUERY START TRANSACTION READ ONLY",
                Reply.err(1792, "25006", "Cannot execute statement in a READ ONLY transaction"));

        Acquired acquired = new Acquired();
        lease.acquire(SHOP, List.of("START TRANSACTION READ ONLY", "SAVEPOINT sp1"), acquired);
        backend.serve();

        assertThat(backend.sent()).containsExactly("COM_QUERY START TRANSACTION READ ONLY");
        assertThat(acquired.connection).isNull();
        assertThat(acquired.error.code()).isEqualTo(1792);
        assertThat(lease.current()).isNull();
        assertThat(backend.idle()).isEqualTo(1);
    }

    @Test
    void countingWarningsAsksTheServerWhetherItsListHasARow() {
        backend.answer(
                "COM_QUERY " + DiagnosticsHold.PEEK,
                Reply.rows(
                        List.of("Level", "Code", "Message"),
                        AUTOCOMMIT,
                        List.of(List.of("Warning", "1265", "Data truncated for column 'a' at row 1"))));
        long epoch = lease.epoch();

        List<Integer> counts = new ArrayList<>();
        lease.countWarnings(counts::add);
        assertThat(lease.internalPending()).isTrue();
        backend.serve();

        assertThat(backend.sent())
                .as("a diagnostics statement, which moves no row number")
                .containsExactly("COM_QUERY SHOW WARNINGS LIMIT 1");
        assertThat(counts).containsExactly(1);
        assertThat(lease.internalPending()).isFalse();
        assertThat(lease.epoch())
                .as("the server session saw a command of the router's")
                .isEqualTo(epoch + 1);
    }

    @Test
    void aFailedWarningCountHoldsOn() {
        backend.answer("COM_QUERY " + DiagnosticsHold.PEEK, Reply.err(1142, "42000", "command denied"));

        List<Integer> counts = new ArrayList<>();
        lease.countWarnings(counts::add);
        backend.serve();

        assertThat(counts).containsExactly(1);
    }

    @Test
    void theClientsStatementsLeaveTheEpochAlone() {
        long epoch = lease.epoch();
        backend.clientQuery(connection.pooled(), "SELECT 1");
        backend.answer("COM_QUERY SELECT 1", Reply.rows(List.of("1"), AUTOCOMMIT, List.of(List.of("1"))));
        backend.serve();
        backend.relayed();

        assertThat(lease.epoch()).isEqualTo(epoch);
        assertThat(owner.events).containsExactly(new RecordingOwner.Completed(lease, AUTOCOMMIT, false));
    }

    @Test
    void warningsKeepTheConnectionUntilAnotherLeaseRunsTheSessionsStatementThenItsNextBorrowerClearsThem() {
        backend.clientQuery(connection.pooled(), "SELECT 1/0");
        backend.answer("COM_QUERY SELECT 1/0", Reply.rows(List.of("1/0"), AUTOCOMMIT, List.of()));
        backend.serve();
        backend.relayed();
        lease.afterResponse(AUTOCOMMIT, false, true);
        assertThat(lease.current()).isSameAs(connection.pooled());
        assertThat(lease.pins()).containsExactly(PinReason.DIAGNOSTICS);

        lease.endDiagnosticsHold();

        assertThat(lease.current()).isNull();
        assertThat(backend.idle()).isEqualTo(1);
        assertThat(connection.pooled().relay().diagnosticsDirty()).isTrue();

        Acquired acquired = new Acquired();
        lease.acquire(SHOP, acquired);
        backend.serve();
        assertThat(backend.sent()).containsExactly("COM_QUERY SELECT 1/0", "COM_QUERY " + DiagnosticsHold.CLEAR);
        assertThat(acquired.connection).isSameAs(connection.pooled());
    }

    @Test
    void countingWarningsReadsAnEmptyListWhenResultSetsEndInAnOk() {
        lease.close();
        backend.close();
        backend = new RecordingBackend("{}", 0, true);
        owner = new RecordingOwner(backend.client());
        lease = new BackendLease(backend.hostgroup(), false, backend.loop(), backend.kind(), owner);
        borrow();
        backend.answer(
                "COM_QUERY " + DiagnosticsHold.PEEK,
                Reply.rows(List.of("Level", "Code", "Message"), AUTOCOMMIT, List.of()));

        List<Integer> counts = new ArrayList<>();
        lease.countWarnings(counts::add);
        backend.serve();

        assertThat(counts).containsExactly(0);
    }

    @Test
    void aStreamedQueryHandsItsBytesOverAsTheyArriveThenHearsHowItEnded() {
        backend.answer(
                "COM_QUERY SELECT a FROM t",
                Reply.rows(List.of("a"), AUTOCOMMIT, List.of(List.of("hello world"), List.of("bye"))));
        ByteArrayOutputStream streamed = new ByteArrayOutputStream();
        List<Boolean> ends = new ArrayList<>();

        lease.streamInternal(
                out -> out.writeByte(0x03).writeCharSequence("SELECT a FROM t", StandardCharsets.UTF_8),
                Response.RESULT_SET,
                chunk -> {
                    streamed.writeBytes(ByteBufUtil.getBytes(chunk));
                    chunk.release();
                },
                ends::add);
        backend.serve();

        assertThat(backend.sent()).containsExactly("COM_QUERY SELECT a FROM t");
        assertThat(ends).containsExactly(false);
        // column count 5, definition 27, EOF 9, rows 16 and 8, EOF 9
        assertThat(streamed.size()).isEqualTo(74);
        assertThat(new String(streamed.toByteArray(), StandardCharsets.UTF_8)).contains("hello world", "bye");
        assertThat(lease.internalPending()).isFalse();
    }

    @Test
    void aStreamedQueryThatFailsEndsInAnError() {
        backend.answer("COM_QUERY SELECT b FROM t", Reply.err(1054, "42S22", "Unknown column 'b' in 'field list'"));
        List<ByteBuf> chunks = new ArrayList<>();
        List<Boolean> ends = new ArrayList<>();

        lease.streamInternal(
                out -> out.writeByte(0x03).writeCharSequence("SELECT b FROM t", StandardCharsets.UTF_8),
                Response.RESULT_SET,
                chunks::add,
                ends::add);
        backend.serve();

        assertThat(ends).containsExactly(true);
        chunks.forEach(ByteBuf::release);
    }
}
