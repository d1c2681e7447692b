package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.fakebackend.RecordingBackend;
import io.shardgate.router.fakebackend.Reply;
import io.shardgate.router.frontend.FakeShardsSession;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link XaCommit} through a real session on two fake shards of a two_phase schema (see
 * docs/transactions.md, "How a two_phase transaction commits"): the XA statements each shard gets,
 * in order, the decision logged in a real ZooKeeper between PREPARE and COMMIT, and the client's
 * answer.
 */
class XaCommitTest {
    static final String YAML = QueryRouterSingleShardTest.YAML + "    transaction_mode: two_phase\n";
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private static final int IN_TRANS = ServerStatus.SERVER_STATUS_IN_TRANS | AUTOCOMMIT;
    private static final int MORE = ServerStatus.SERVER_MORE_RESULTS_EXISTS;
    /** The first xid of node 7 in the first epoch of a fresh ZooKeeper, as each shard's branch names it. */
    private static final String XID = "'sg.7.0.1','%d',1397174851";

    @TempDir
    Path dir;

    private TwoPhaseLog zk;
    private FakeShardsSession session;

    @BeforeEach
    void open() throws Exception {
        zk = new TwoPhaseLog(dir);
        session = new FakeShardsSession(YAML, "bank", zk.twoPhase());
    }

    @AfterEach
    void close() throws Exception {
        try {
            session.close();
        } finally {
            zk.close();
        }
    }

    private static String xid(int hostgroup) {
        return XID.formatted(hostgroup);
    }

    /** The shard answers XA START and the statements of a transaction as a server in one does. */
    private RecordingBackend inTransaction(int hostgroup, String... statements) {
        RecordingBackend shard = session.shard(hostgroup);
        shard.answer("COM_QUERY XA START " + xid(hostgroup), Reply.ok(IN_TRANS));
        for (String sql : statements) {
            shard.answer("COM_QUERY " + sql, Reply.ok(1, 0, IN_TRANS, 0));
        }
        return shard;
    }

    /** The answer to a multi-statement query of two statements that both succeed. */
    private static Reply bothOk() {
        return Reply.ok(MORE | IN_TRANS).then(Reply.ok(AUTOCOMMIT));
    }

    @Test
    void aTransactionWritingOnTwoShardsPreparesBothLogsTheDecisionThenCommitsBoth() throws Exception {
        String write10 = "UPDATE accounts SET balance = balance - 10 WHERE id = 1";
        String write20 = "UPDATE accounts SET balance = balance + 10 WHERE id = 1001";
        RecordingBackend shard10 = inTransaction(10, write10);
        RecordingBackend shard20 = inTransaction(20, write20);
        shard10.answer("COM_QUERY XA END " + xid(10) + "; XA PREPARE " + xid(10), bothOk());
        shard20.answer("COM_QUERY XA END " + xid(20) + "; XA PREPARE " + xid(20), bothOk());

        assertThat(session.query("BEGIN")).containsExactly("OK affected=0 status=0x0003");
        assertThat(shard10.sent())
                .as("BEGIN is deferred to the first statement")
                .isEmpty();

        session.send(write10);
        assertThat(shard10.sent())
                .as("XA START goes out when the first statement reaches the shard, which waits for its OK")
                .containsExactly("COM_QUERY XA START " + xid(10));
        session.settle();
        assertThat(shard10.sent()).containsExactly("COM_QUERY XA START " + xid(10), "COM_QUERY " + write10);
        assertThat(session.answers()).containsExactly("OK affected=1 status=0x0003");
        assertThat(session.query(write20)).containsExactly("OK affected=1 status=0x0003");

        session.send("COMMIT");
        session.settle();
        assertThat(session.answers()).as("not before the decision is logged").isEmpty();
        assertThat(zk.awaitDecision()).containsExactly("sg.7.0.1");
        assertThat(shard10.sent())
                .as("one round trip per shard, no XA COMMIT before the decision")
                .containsExactly(
                        "COM_QUERY XA START " + xid(10),
                        "COM_QUERY " + write10,
                        "COM_QUERY XA END " + xid(10) + "; XA PREPARE " + xid(10));
        assertThat(shard20.sent())
                .containsExactly(
                        "COM_QUERY XA START " + xid(20),
                        "COM_QUERY " + write20,
                        "COM_QUERY XA END " + xid(20) + "; XA PREPARE " + xid(20));
        shard10.clearSent();
        shard20.clearSent();

        session.runPendingTasks();
        session.settle();

        assertThat(shard10.sent()).containsExactly("COM_QUERY XA COMMIT " + xid(10));
        assertThat(shard20.sent()).containsExactly("COM_QUERY XA COMMIT " + xid(20));
        assertThat(session.answers()).containsExactly("OK affected=0 status=0x0002");
    }

    @Test
    void anAutocommitWriteOnTwoShardsRunsInXaAndCommitsInTwoPhases() throws Exception {
        String everyRow = "UPDATE accounts SET balance = 0";
        RecordingBackend shard10 = inTransaction(10);
        RecordingBackend shard20 = inTransaction(20);
        shard10.answer("COM_QUERY " + everyRow, Reply.ok(2, 0, IN_TRANS, 0));
        shard20.answer("COM_QUERY " + everyRow, Reply.ok(3, 0, IN_TRANS, 0));
        shard10.answer("COM_QUERY XA END " + xid(10) + "; XA PREPARE " + xid(10), bothOk());
        shard20.answer("COM_QUERY XA END " + xid(20) + "; XA PREPARE " + xid(20), bothOk());

        session.send(everyRow);
        session.settle();
        assertThat(session.answers()).as("not before the decision is logged").isEmpty();
        assertThat(zk.awaitDecision()).containsExactly("sg.7.0.1");
        session.runPendingTasks();
        session.settle();

        assertThat(session.answers()).containsExactly("OK affected=5 status=0x0002");
        for (RecordingBackend shard : java.util.List.of(shard10, shard20)) {
            int hostgroup = shard == shard10 ? 10 : 20;
            assertThat(shard.sent())
                    .containsExactly(
                            "COM_QUERY XA START " + xid(hostgroup),
                            "COM_QUERY " + everyRow,
                            "COM_QUERY XA END " + xid(hostgroup) + "; XA PREPARE " + xid(hostgroup),
                            "COM_QUERY XA COMMIT " + xid(hostgroup));
        }
    }

    @Test
    void aTransactionWritingOnOneShardCommitsInOnePhaseInOneRoundTrip() throws Exception {
        String write = "UPDATE accounts SET balance = 1 WHERE id = 1";
        RecordingBackend shard10 = inTransaction(10, write);
        shard10.answer("COM_QUERY XA END " + xid(10) + "; XA COMMIT " + xid(10) + " ONE PHASE", bothOk());

        session.query("BEGIN");
        session.query(write);
        assertThat(session.query("COMMIT"))
                .as("answered without a decision in ZooKeeper")
                .containsExactly("OK affected=0 status=0x0002");

        assertThat(shard10.sent())
                .containsExactly(
                        "COM_QUERY XA START " + xid(10),
                        "COM_QUERY " + write,
                        "COM_QUERY XA END " + xid(10) + "; XA COMMIT " + xid(10) + " ONE PHASE");
        assertThat(session.shard(20).sent()).isEmpty();
        assertThat(zk.decisions()).isEmpty();
    }

    @Test
    void aBranchThatOnlyReadCommitsInOnePhaseBeforeTheWriter() throws Exception {
        String read = "SELECT balance FROM accounts WHERE id = 1";
        String write = "UPDATE accounts SET balance = 1 WHERE id = 1001";
        RecordingBackend shard10 = inTransaction(10);
        shard10.answer(
                "COM_QUERY " + read,
                Reply.rows(java.util.List.of("balance"), IN_TRANS, java.util.List.of(java.util.List.of("100"))));
        shard10.answer("COM_QUERY XA END " + xid(10) + "; XA COMMIT " + xid(10) + " ONE PHASE", bothOk());
        RecordingBackend shard20 = inTransaction(20, write);
        shard20.answer("COM_QUERY XA END " + xid(20), Reply.ok(IN_TRANS));
        shard20.answer("COM_QUERY XA COMMIT " + xid(20) + " ONE PHASE", Reply.ok(AUTOCOMMIT));

        session.query("BEGIN");
        assertThat(session.query(read)).containsExactly("columns: balance", "row: 100", "EOF status=0x0003");
        session.query(write);
        session.send("COMMIT");
        shard20.serve();
        assertThat(shard20.sent())
                .as("the writer's commit waits for the read-only branch's")
                .last()
                .isEqualTo("COM_QUERY XA END " + xid(20));
        assertThat(session.answers()).isEmpty();
        session.settle();

        assertThat(shard10.sent())
                .containsExactly(
                        "COM_QUERY XA START " + xid(10),
                        "COM_QUERY " + read,
                        "COM_QUERY XA END " + xid(10) + "; XA COMMIT " + xid(10) + " ONE PHASE");
        assertThat(shard20.sent())
                .containsExactly(
                        "COM_QUERY XA START " + xid(20),
                        "COM_QUERY " + write,
                        "COM_QUERY XA END " + xid(20),
                        "COM_QUERY XA COMMIT " + xid(20) + " ONE PHASE");
        assertThat(session.answers()).containsExactly("OK affected=0 status=0x0002");
        assertThat(zk.decisions()).isEmpty();
    }

    @Test
    void aFailedPrepareOnOneShardRollsBackBothAndNamesTheShardAndTheXid() throws Exception {
        String write10 = "UPDATE accounts SET balance = 1 WHERE id = 1";
        String write20 = "UPDATE accounts SET balance = 1 WHERE id = 1001";
        RecordingBackend shard10 = inTransaction(10, write10);
        RecordingBackend shard20 = inTransaction(20, write20);
        shard10.answer("COM_QUERY XA END " + xid(10) + "; XA PREPARE " + xid(10), bothOk());
        shard20.answer(
                "COM_QUERY XA END " + xid(20) + "; XA PREPARE " + xid(20),
                Reply.ok(MORE | IN_TRANS)
                        .then(Reply.err(
                                1213, "40001", "Deadlock found when trying to get lock; try restarting transaction")));
        // a branch already ended (or prepared) refuses another XA END; the router goes on to XA ROLLBACK
        String notActive = "XAER_RMFAIL: The command cannot be executed when global transaction is in the  IDLE state";
        shard10.answer("COM_QUERY XA END " + xid(10), Reply.err(1399, "XAE07", notActive));
        shard20.answer("COM_QUERY XA END " + xid(20), Reply.err(1399, "XAE07", notActive));

        session.query("BEGIN");
        session.query(write10);
        session.query(write20);
        assertThat(session.query("COMMIT"))
                .containsExactly("ERR 1402 (XA100): Shardgate two-phase commit of transaction sg.7.0.1 (hostgroups"
                        + " [10, 20]) rolled back: hostgroup 20 failed with ERROR 1213: Deadlock found when trying"
                        + " to get lock; try restarting transaction");

        assertThat(shard10.sent())
                .containsExactly(
                        "COM_QUERY XA START " + xid(10),
                        "COM_QUERY " + write10,
                        "COM_QUERY XA END " + xid(10) + "; XA PREPARE " + xid(10),
                        "COM_QUERY XA END " + xid(10),
                        "COM_QUERY XA ROLLBACK " + xid(10));
        assertThat(shard20.sent())
                .containsExactly(
                        "COM_QUERY XA START " + xid(20),
                        "COM_QUERY " + write20,
                        "COM_QUERY XA END " + xid(20) + "; XA PREPARE " + xid(20),
                        "COM_QUERY XA END " + xid(20),
                        "COM_QUERY XA ROLLBACK " + xid(20));
        assertThat(zk.decisions())
                .as("every branch confirmed rolled back: nothing for the resolver")
                .isEmpty();

        assertThat(session.query("SELECT 1 FROM accounts WHERE id = 1"))
                .as("the transaction is over: the next statement is autocommit, no XA")
                .containsExactly("OK affected=0 status=0x0002");
        assertThat(shard10.sent()).last().isEqualTo("COM_QUERY SELECT 1 FROM accounts WHERE id = 1");
    }

    @Test
    void rollbackEndsAndRollsBackEveryBranch() throws Exception {
        String write10 = "DELETE FROM accounts WHERE id = 1";
        String write20 = "DELETE FROM accounts WHERE id = 1001";
        RecordingBackend shard10 = inTransaction(10, write10);
        RecordingBackend shard20 = inTransaction(20, write20);

        session.query("BEGIN");
        session.query(write10);
        session.query(write20);
        assertThat(session.query("ROLLBACK")).containsExactly("OK affected=0 status=0x0002");

        assertThat(shard10.sent())
                .containsExactly(
                        "COM_QUERY XA START " + xid(10),
                        "COM_QUERY " + write10,
                        "COM_QUERY XA END " + xid(10),
                        "COM_QUERY XA ROLLBACK " + xid(10));
        assertThat(shard20.sent())
                .containsExactly(
                        "COM_QUERY XA START " + xid(20),
                        "COM_QUERY " + write20,
                        "COM_QUERY XA END " + xid(20),
                        "COM_QUERY XA ROLLBACK " + xid(20));
        assertThat(zk.decisions()).isEmpty();
    }
}
