package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.fakebackend.RecordingBackend;
import io.shardgate.router.fakebackend.Reply;
import io.shardgate.router.frontend.FakeShardsSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TransactionBroadcast} and {@link ImplicitCommit} in a best_effort schema, through a real
 * session on two fake shards: COMMIT and ROLLBACK reach every shard the transaction touched, one
 * after the other, and no other; a failed COMMIT still lets the others commit and is the client's
 * answer; BEGIN inside a transaction on two shards commits on both first.
 */
class TransactionBroadcastTest {
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private static final int IN_TRANS = ServerStatus.SERVER_STATUS_IN_TRANS | AUTOCOMMIT;
    private static final String WRITE_10 = "UPDATE accounts SET balance = balance - 10 WHERE id = 1";
    private static final String WRITE_20 = "UPDATE accounts SET balance = balance + 10 WHERE id = 1001";

    private final FakeShardsSession session =
            new FakeShardsSession(QueryRouterSingleShardTest.YAML, "bank", QueryRouterSingleShardTest.noTwoPhase());
    private final RecordingBackend shard10 = session.shard(10);
    private final RecordingBackend shard20 = session.shard(20);

    @AfterEach
    void close() {
        session.close();
    }

    /** The shard answers BEGIN and {@code statement} as a server inside a transaction does. */
    private static void inTransaction(RecordingBackend shard, String statement) {
        shard.answer("COM_QUERY BEGIN", Reply.ok(IN_TRANS));
        shard.answer("COM_QUERY " + statement, Reply.ok(1, 0, IN_TRANS, 0));
    }

    /** BEGIN, then a write on each shard. */
    private void transactionOnBothShards() {
        inTransaction(shard10, WRITE_10);
        inTransaction(shard20, WRITE_20);
        assertThat(session.query("BEGIN")).containsExactly("OK affected=0 status=0x0003");
        assertThat(session.query(WRITE_10)).containsExactly("OK affected=1 status=0x0003");
        assertThat(session.query(WRITE_20)).containsExactly("OK affected=1 status=0x0003");
    }

    @Test
    void commitRunsOnEveryShardTheTransactionTouchedInTurn() {
        transactionOnBothShards();

        session.send("COMMIT");
        assertThat(shard20.sent()).last().isEqualTo("COM_QUERY COMMIT");
        assertThat(shard10.sent())
                .as("in turn, the home hostgroup last: its COMMIT waits for the other's answer")
                .last()
                .isEqualTo("COM_QUERY " + WRITE_10);
        shard20.serve();
        assertThat(shard10.sent()).last().isEqualTo("COM_QUERY COMMIT");
        assertThat(session.answers()).isEmpty();
        session.settle();

        assertThat(shard10.sent()).containsExactly("COM_QUERY BEGIN", "COM_QUERY " + WRITE_10, "COM_QUERY COMMIT");
        assertThat(shard20.sent()).containsExactly("COM_QUERY BEGIN", "COM_QUERY " + WRITE_20, "COM_QUERY COMMIT");
        assertThat(session.answers()).containsExactly("OK affected=0 status=0x0002");
    }

    @Test
    void aCommitFailingOnOneShardStillCommitsTheOtherAndIsTheAnswer() {
        transactionOnBothShards();
        // the shard that commits first fails: shard 20 (the home hostgroup goes last)
        shard20.answer(
                "COM_QUERY COMMIT", Reply.err(1180, "HY000", "Got error 4 \"Interrupted system call\" during COMMIT"));

        assertThat(session.query("COMMIT"))
                .containsExactly("ERR 1180 (HY000): Got error 4 \"Interrupted system call\" during COMMIT");

        assertThat(shard20.sent()).last().isEqualTo("COM_QUERY COMMIT");
        assertThat(shard10.sent())
                .as("no shard stays in the transaction")
                .last()
                .isEqualTo("COM_QUERY COMMIT");
    }

    @Test
    void rollbackRunsOnEveryShardTheTransactionTouched() {
        transactionOnBothShards();

        assertThat(session.query("ROLLBACK")).containsExactly("OK affected=0 status=0x0002");

        assertThat(shard10.sent()).containsExactly("COM_QUERY BEGIN", "COM_QUERY " + WRITE_10, "COM_QUERY ROLLBACK");
        assertThat(shard20.sent()).containsExactly("COM_QUERY BEGIN", "COM_QUERY " + WRITE_20, "COM_QUERY ROLLBACK");
    }

    @Test
    void aTransactionOnOneShardCommitsThereAlone() {
        inTransaction(shard20, WRITE_20);

        session.query("BEGIN");
        session.query(WRITE_20);
        assertThat(session.query("COMMIT")).containsExactly("OK affected=0 status=0x0002");

        assertThat(shard20.sent()).containsExactly("COM_QUERY BEGIN", "COM_QUERY " + WRITE_20, "COM_QUERY COMMIT");
        assertThat(shard10.sent()).isEmpty();
    }

    @Test
    void beginInsideATransactionOnTwoShardsCommitsOnBothThenBeginsAgain() {
        transactionOnBothShards();
        shard10.answer("COM_QUERY BEGIN", Reply.ok(IN_TRANS));
        shard10.answer("COM_QUERY " + WRITE_10, Reply.ok(1, 0, IN_TRANS, 0));

        assertThat(session.query("BEGIN")).containsExactly("OK affected=0 status=0x0003");
        assertThat(shard20.sent()).last().isEqualTo("COM_QUERY COMMIT");
        assertThat(shard10.sent())
                .as("COMMIT on both, then the client's BEGIN on the home hostgroup")
                .endsWith("COM_QUERY COMMIT", "COM_QUERY BEGIN");

        assertThat(session.query(WRITE_10)).containsExactly("OK affected=1 status=0x0003");
        assertThat(session.query("COMMIT")).containsExactly("OK affected=0 status=0x0002");
        assertThat(shard10.sent())
                .containsExactly(
                        "COM_QUERY BEGIN",
                        "COM_QUERY " + WRITE_10,
                        "COM_QUERY COMMIT",
                        "COM_QUERY BEGIN",
                        "COM_QUERY " + WRITE_10,
                        "COM_QUERY COMMIT");
        assertThat(shard20.sent())
                .as("the new transaction did not reach shard 20")
                .containsExactly("COM_QUERY BEGIN", "COM_QUERY " + WRITE_20, "COM_QUERY COMMIT");
    }

    @Test
    void aFailedImplicitCommitIsTheBeginsError() {
        transactionOnBothShards();
        // the implicit commit runs where the transaction went, in that order: shard 10 first
        shard10.answer(
                "COM_QUERY COMMIT", Reply.err(1180, "HY000", "Got error 4 \"Interrupted system call\" during COMMIT"));

        assertThat(session.query("BEGIN"))
                .containsExactly("ERR 1180 (HY000): Got error 4 \"Interrupted system call\" during COMMIT");

        assertThat(shard10.sent()).last().isEqualTo("COM_QUERY COMMIT");
        assertThat(shard20.sent()).last().isEqualTo("COM_QUERY COMMIT");
        assertThat(session.query("SELECT balance FROM accounts WHERE id = 1001"))
                .as("no transaction: the next statement runs alone")
                .containsExactly("OK affected=0 status=0x0002");
        assertThat(shard20.sent()).last().isEqualTo("COM_QUERY SELECT balance FROM accounts WHERE id = 1001");
    }
}
