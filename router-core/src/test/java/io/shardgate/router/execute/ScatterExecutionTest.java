package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.fakebackend.RecordingBackend;
import io.shardgate.router.fakebackend.Reply;
import io.shardgate.router.frontend.FakeShardsSession;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ScatterExecution} in a best_effort schema, through a real session on two fake shards: a
 * statement on both shards is sent as is to each, the answers merged (affected rows summed, rows
 * of both), and a write is made all-or-nothing by {@link StatementAtomicity}: START TRANSACTION and
 * COMMIT or ROLLBACK around it in autocommit, a savepoint rolled back to on every shard inside a
 * transaction.
 */
class ScatterExecutionTest {
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private static final int IN_TRANS = ServerStatus.SERVER_STATUS_IN_TRANS | AUTOCOMMIT;
    private static final String EVERY_ROW = "UPDATE accounts SET balance = 0";
    private static final String DUPLICATE = "Duplicate entry '7' for key 'PRIMARY'";

    private final FakeShardsSession session =
            new FakeShardsSession(QueryRouterSingleShardTest.YAML, "bank", QueryRouterSingleShardTest.noTwoPhase());
    private final RecordingBackend shard10 = session.shard(10);
    private final RecordingBackend shard20 = session.shard(20);

    @AfterEach
    void close() {
        session.close();
    }

    /** The shard answers the statement's START TRANSACTION and the statement itself, affecting {@code rows}. */
    private static void transactionOf(RecordingBackend shard, Reply statement) {
        shard.answer("COM_QUERY START TRANSACTION", Reply.ok(IN_TRANS));
        shard.answer("COM_QUERY " + EVERY_ROW, statement);
    }

    @Test
    void anAutocommitWriteOnTwoShardsRunsInATransactionOnEachAndSumsAffectedRows() {
        transactionOf(shard10, Reply.ok(2, 0, IN_TRANS, 0));
        transactionOf(shard20, Reply.ok(3, 0, IN_TRANS, 0));

        assertThat(session.query(EVERY_ROW)).containsExactly("OK affected=5 status=0x0002");

        List<String> each = List.of("COM_QUERY START TRANSACTION", "COM_QUERY " + EVERY_ROW, "COM_QUERY COMMIT");
        assertThat(shard10.sent()).isEqualTo(each);
        assertThat(shard20.sent()).isEqualTo(each);
    }

    @Test
    void anAutocommitWriteFailingOnOneShardRollsBackOnBothAndAnswersTheError() {
        transactionOf(shard10, Reply.ok(2, 0, IN_TRANS, 0));
        transactionOf(shard20, Reply.err(1062, "23000", DUPLICATE));

        assertThat(session.query(EVERY_ROW)).containsExactly("ERR 1062 (23000): " + DUPLICATE);

        List<String> each = List.of("COM_QUERY START TRANSACTION", "COM_QUERY " + EVERY_ROW, "COM_QUERY ROLLBACK");
        assertThat(shard10.sent()).isEqualTo(each);
        assertThat(shard20.sent()).isEqualTo(each);
    }

    @Test
    void aWriteFailingOnOneShardInsideATransactionRollsBackToTheSavepointOnBoth() {
        for (RecordingBackend shard : List.of(shard10, shard20)) {
            shard.answer("COM_QUERY BEGIN", Reply.ok(IN_TRANS));
            shard.answer("COM_QUERY SAVEPOINT shardgate_statement", Reply.ok(IN_TRANS));
            shard.answer("COM_QUERY ROLLBACK TO SAVEPOINT shardgate_statement", Reply.ok(IN_TRANS));
        }
        shard10.answer("COM_QUERY " + EVERY_ROW, Reply.ok(2, 0, IN_TRANS, 0));
        shard20.answer("COM_QUERY " + EVERY_ROW, Reply.err(1062, "23000", DUPLICATE));

        session.query("BEGIN");
        assertThat(session.query(EVERY_ROW)).containsExactly("ERR 1062 (23000): " + DUPLICATE);
        List<String> each = List.of(
                "COM_QUERY BEGIN",
                "COM_QUERY SAVEPOINT shardgate_statement",
                "COM_QUERY " + EVERY_ROW,
                "COM_QUERY ROLLBACK TO SAVEPOINT shardgate_statement");
        assertThat(shard10.sent()).isEqualTo(each);
        assertThat(shard20.sent()).isEqualTo(each);

        assertThat(session.query("COMMIT"))
                .as("the rest of the transaction stays: its COMMIT reaches both shards")
                .containsExactly("OK affected=0 status=0x0002");
        assertThat(shard10.sent()).last().isEqualTo("COM_QUERY COMMIT");
        assertThat(shard20.sent()).last().isEqualTo("COM_QUERY COMMIT");
    }

    @Test
    void aReadOnTwoShardsSendsTheSameStatementToEachAndReturnsTheRowsOfBoth() {
        String read = "SELECT id FROM accounts";
        shard10.answer("COM_QUERY " + read, Reply.rows(List.of("id"), AUTOCOMMIT, List.of(List.of("1"), List.of("2"))));
        shard20.answer("COM_QUERY " + read, Reply.rows(List.of("id"), AUTOCOMMIT, List.of(List.of("1001"))));

        List<String> answer = session.query(read);

        assertThat(shard10.sent()).containsExactly("COM_QUERY " + read);
        assertThat(shard20.sent()).containsExactly("COM_QUERY " + read);
        assertThat(answer.get(0)).isEqualTo("columns: id");
        assertThat(answer.subList(1, answer.size() - 1)).containsExactlyInAnyOrder("row: 1", "row: 2", "row: 1001");
        assertThat(answer.get(answer.size() - 1)).isEqualTo("EOF status=0x0002");
    }
}
