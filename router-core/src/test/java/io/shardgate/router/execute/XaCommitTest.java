package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.fakebackend.RecordingBackend;
import io.shardgate.router.fakebackend.Reply;
import io.shardgate.router.frontend.FakeShardsSession;
import io.shardgate.router.twophase.DecisionTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link XaCommit} through a real session on two fake shards of a two_phase schema (see
 * docs/transactions.md, "How a two_phase transaction commits"): the first shard a transaction
 * reaches is its metadata manager (a plain transaction), the other joins with XA; the statements
 * each shard gets, in order, the decision row inserted and committed on the manager between the
 * other's PREPARE and COMMIT, and the client's answer. ZooKeeper (real, in-process) only hands out
 * the xid epoch: nothing is written there per transaction.
 */
class XaCommitTest {
    static final String YAML = QueryRouterSingleShardTest.YAML + "    transaction_mode: two_phase\n";
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private static final int IN_TRANS = ServerStatus.SERVER_STATUS_IN_TRANS | AUTOCOMMIT;
    private static final int MORE = ServerStatus.SERVER_MORE_RESULTS_EXISTS;
    /** The first xid of node 7 in the first epoch of a fresh ZooKeeper, manager hostgroup 10. */
    private static final String GTRID = "sg.7.0.1.10";
    /** The branch of hostgroup 20 (hostgroup 10 is the manager: no branch). */
    private static final String XID20 = "'" + GTRID + "','20',1397174851";

    private static final DecisionTable TABLE = new DecisionTable();
    private static final String COMMIT_ROW =
            "INSERT INTO `shardgate`.`twophase_decisions` (id, outcome) VALUES ('" + GTRID + "', 'commit')";

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

    /** The manager: creates the decision table (first time), begins, answers its statements in a transaction. */
    private RecordingBackend manager(String begin, String... statements) {
        RecordingBackend shard = session.shard(10);
        shard.answer("COM_QUERY " + begin, Reply.ok(IN_TRANS));
        for (String sql : statements) {
            shard.answer("COM_QUERY " + sql, Reply.ok(1, 0, IN_TRANS, 0));
        }
        shard.answer("COM_QUERY " + XaCommit.PROBE, Reply.ok(IN_TRANS));
        return shard;
    }

    /** What the manager gets first: the decision table created, then the transaction's BEGIN. */
    private static List<String> managerBegins(String begin) {
        List<String> out = new ArrayList<>();
        TABLE.createSteps().forEach(sql -> out.add("COM_QUERY " + sql));
        out.add("COM_QUERY " + begin);
        return out;
    }

    /** Hostgroup 20 answers XA START and the statements of a transaction as a server in one does. */
    private RecordingBackend branch20(String... statements) {
        RecordingBackend shard = session.shard(20);
        shard.answer("COM_QUERY XA START " + XID20, Reply.ok(IN_TRANS));
        for (String sql : statements) {
            shard.answer("COM_QUERY " + sql, Reply.ok(1, 0, IN_TRANS, 0));
        }
        return shard;
    }

    /** The answer to a multi-statement query of two statements that both succeed. */
    private static Reply bothOk() {
        return Reply.ok(MORE | IN_TRANS).then(Reply.ok(AUTOCOMMIT));
    }

    private static List<String> plus(List<String> first, String... more) {
        List<String> out = new ArrayList<>(first);
        for (String s : more) {
            out.add(s);
        }
        return out;
    }

    @Test
    void aTransactionWritingOnTwoShardsPreparesTheBranchCommitsTheManagerWithItsDecisionThenTheBranch()
            throws Exception {
        String write10 = "UPDATE accounts SET balance = balance - 10 WHERE id = 1";
        String write20 = "UPDATE accounts SET balance = balance + 10 WHERE id = 1001";
        RecordingBackend shard10 = manager("BEGIN", write10);
        RecordingBackend shard20 = branch20(write20);
        shard20.answer("COM_QUERY XA END " + XID20 + "; XA PREPARE " + XID20, bothOk());
        shard10.answer("COM_QUERY " + COMMIT_ROW + "; COMMIT", bothOk());

        assertThat(session.query("BEGIN")).containsExactly("OK affected=0 status=0x0003");
        assertThat(shard10.sent())
                .as("BEGIN is deferred to the first statement")
                .isEmpty();
        assertThat(session.query(write10)).containsExactly("OK affected=1 status=0x0003");
        assertThat(session.query(write20)).containsExactly("OK affected=1 status=0x0003");
        shard10.clearSent();
        shard20.clearSent();

        session.send("COMMIT");
        shard10.serve();
        assertThat(shard10.sent())
                .as("while the other branch prepares, the manager is asked whether its transaction is open")
                .containsExactly("COM_QUERY " + XaCommit.PROBE);
        shard10.clearSent();
        shard20.serve();
        assertThat(shard10.sent())
                .as("the decision row and the manager's COMMIT, once every other branch prepared: one round trip")
                .containsExactly("COM_QUERY " + COMMIT_ROW + "; COMMIT");
        assertThat(shard20.sent())
                .as("no XA COMMIT before the manager committed")
                .containsExactly("COM_QUERY XA END " + XID20 + "; XA PREPARE " + XID20);
        assertThat(session.answers()).isEmpty();
        session.settle();

        assertThat(shard20.sent())
                .containsExactly("COM_QUERY XA END " + XID20 + "; XA PREPARE " + XID20, "COM_QUERY XA COMMIT " + XID20);
        assertThat(session.answers()).containsExactly("OK affected=0 status=0x0002");
        assertThat(zk.transactionNodes())
                .as("nothing per transaction in ZooKeeper")
                .doesNotContain("decisions");
    }

    @Test
    void theManagerBeginsPlainlyAndTheOtherShardJoinsWithXaStart() {
        String write10 = "UPDATE accounts SET balance = balance - 10 WHERE id = 1";
        String write20 = "UPDATE accounts SET balance = balance + 10 WHERE id = 1001";
        RecordingBackend shard10 = manager("BEGIN", write10);
        RecordingBackend shard20 = branch20(write20);
        session.query("BEGIN");
        session.query(write10);
        session.query(write20);
        assertThat(shard10.sent())
                .as("the decision table created before the manager's BEGIN, the first time only")
                .containsExactlyElementsOf(plus(managerBegins("BEGIN"), "COM_QUERY " + write10));
        assertThat(shard20.sent()).containsExactly("COM_QUERY XA START " + XID20, "COM_QUERY " + write20);
    }

    @Test
    void anAutocommitWriteOnTwoShardsRunsOnTheManagerAndOneXaBranchAndCommitsInTwoPhases() {
        String everyRow = "UPDATE accounts SET balance = 0";
        RecordingBackend shard10 = manager("START TRANSACTION");
        RecordingBackend shard20 = branch20();
        shard10.answer("COM_QUERY " + everyRow, Reply.ok(2, 0, IN_TRANS, 0));
        shard20.answer("COM_QUERY " + everyRow, Reply.ok(3, 0, IN_TRANS, 0));
        shard20.answer("COM_QUERY XA END " + XID20 + "; XA PREPARE " + XID20, bothOk());
        shard10.answer("COM_QUERY " + COMMIT_ROW + "; COMMIT", bothOk());

        assertThat(session.query(everyRow)).containsExactly("OK affected=5 status=0x0002");

        assertThat(shard10.sent())
                .containsExactlyElementsOf(plus(
                        managerBegins("START TRANSACTION"),
                        "COM_QUERY " + everyRow,
                        "COM_QUERY " + XaCommit.PROBE,
                        "COM_QUERY " + COMMIT_ROW + "; COMMIT"));
        assertThat(shard20.sent())
                .containsExactly(
                        "COM_QUERY XA START " + XID20,
                        "COM_QUERY " + everyRow,
                        "COM_QUERY XA END " + XID20 + "; XA PREPARE " + XID20,
                        "COM_QUERY XA COMMIT " + XID20);
    }

    @Test
    void aTransactionWritingOnOneShardCommitsWithAPlainCommitAndNoXa() {
        String write = "UPDATE accounts SET balance = 1 WHERE id = 1";
        RecordingBackend shard10 = manager("BEGIN", write);
        shard10.answer("COM_QUERY COMMIT", Reply.ok(AUTOCOMMIT));

        session.query("BEGIN");
        session.query(write);
        assertThat(session.query("COMMIT")).containsExactly("OK affected=0 status=0x0002");

        assertThat(shard10.sent())
                .as("as best_effort: BEGIN, the write, COMMIT (plus the table, created once per shard)")
                .containsExactlyElementsOf(plus(managerBegins("BEGIN"), "COM_QUERY " + write, "COM_QUERY COMMIT"));
        assertThat(session.shard(20).sent()).isEmpty();

        // the next transaction on that shard: exactly best_effort's statements
        shard10.clearSent();
        String write2 = "UPDATE accounts SET balance = 2 WHERE id = 1";
        manager("BEGIN", write2).answer("COM_QUERY COMMIT", Reply.ok(AUTOCOMMIT));
        session.query("BEGIN");
        session.query(write2);
        assertThat(session.query("COMMIT")).containsExactly("OK affected=0 status=0x0002");
        assertThat(shard10.sent()).containsExactly("COM_QUERY BEGIN", "COM_QUERY " + write2, "COM_QUERY COMMIT");
    }

    @Test
    void aBranchThatOnlyReadCommitsInOnePhaseAndTheManagerWithAPlainCommit() {
        String read = "SELECT balance FROM accounts WHERE id = 1001";
        String write = "UPDATE accounts SET balance = 1 WHERE id = 1";
        RecordingBackend shard10 = manager("BEGIN", write);
        shard10.answer("COM_QUERY COMMIT", Reply.ok(AUTOCOMMIT));
        RecordingBackend shard20 = branch20();
        shard20.answer("COM_QUERY " + read, Reply.rows(List.of("balance"), IN_TRANS, List.of(List.of("100"))));
        shard20.answer("COM_QUERY XA END " + XID20 + "; XA COMMIT " + XID20 + " ONE PHASE", bothOk());

        session.query("BEGIN");
        session.query(write);
        assertThat(session.query(read)).containsExactly("columns: balance", "row: 100", "EOF status=0x0003");
        session.send("COMMIT");
        shard10.serve();
        assertThat(shard10.sent())
                .as("the writer's commit waits for the read-only branch's")
                .doesNotContain("COM_QUERY COMMIT");
        session.settle();

        assertThat(shard20.sent())
                .containsExactly(
                        "COM_QUERY XA START " + XID20,
                        "COM_QUERY " + read,
                        "COM_QUERY XA END " + XID20 + "; XA COMMIT " + XID20 + " ONE PHASE");
        assertThat(shard10.sent()).last().isEqualTo("COM_QUERY COMMIT");
        assertThat(session.answers()).containsExactly("OK affected=0 status=0x0002");
    }

    @Test
    void aFailedPrepareRollsBackTheManagerAndTheBranchAndNamesTheShardAndTheXid() {
        String write10 = "UPDATE accounts SET balance = 1 WHERE id = 1";
        String write20 = "UPDATE accounts SET balance = 1 WHERE id = 1001";
        RecordingBackend shard10 = manager("BEGIN", write10);
        RecordingBackend shard20 = branch20(write20);
        shard20.answer(
                "COM_QUERY XA END " + XID20 + "; XA PREPARE " + XID20,
                Reply.ok(MORE | IN_TRANS)
                        .then(Reply.err(
                                1213, "40001", "Deadlock found when trying to get lock; try restarting transaction")));
        // a branch already ended (or prepared) refuses another XA END; the router goes on to XA ROLLBACK
        String notActive = "XAER_RMFAIL: The command cannot be executed when global transaction is in the  IDLE state";
        shard20.answer("COM_QUERY XA END " + XID20, Reply.err(1399, "XAE07", notActive));
        shard10.answer("COM_QUERY ROLLBACK", Reply.ok(AUTOCOMMIT));

        session.query("BEGIN");
        session.query(write10);
        session.query(write20);
        assertThat(session.query("COMMIT"))
                .containsExactly("ERR 1402 (XA100): Shardgate two-phase commit of transaction " + GTRID
                        + " (hostgroups [10, 20]) rolled back: hostgroup 20 failed with ERROR 1213: Deadlock found"
                        + " when trying to get lock; try restarting transaction");

        assertThat(shard10.sent())
                .containsExactlyElementsOf(plus(
                        managerBegins("BEGIN"),
                        "COM_QUERY " + write10,
                        "COM_QUERY " + XaCommit.PROBE,
                        "COM_QUERY ROLLBACK"));
        assertThat(shard20.sent())
                .containsExactly(
                        "COM_QUERY XA START " + XID20,
                        "COM_QUERY " + write20,
                        "COM_QUERY XA END " + XID20 + "; XA PREPARE " + XID20,
                        "COM_QUERY XA END " + XID20,
                        "COM_QUERY XA ROLLBACK " + XID20);

        assertThat(session.query("SELECT 1 FROM accounts WHERE id = 1"))
                .as("the transaction is over: the next statement is autocommit, no XA")
                .containsExactly("OK affected=0 status=0x0002");
        assertThat(shard10.sent()).last().isEqualTo("COM_QUERY SELECT 1 FROM accounts WHERE id = 1");
    }

    @Test
    void aManagerWhoseDecisionMeetsAResolversRollbackRowRollsEverythingBackAndSaysSo() {
        String write10 = "UPDATE accounts SET balance = 1 WHERE id = 1";
        String write20 = "UPDATE accounts SET balance = 1 WHERE id = 1001";
        RecordingBackend shard10 = manager("BEGIN", write10);
        RecordingBackend shard20 = branch20(write20);
        shard20.answer("COM_QUERY XA END " + XID20 + "; XA PREPARE " + XID20, bothOk());
        // the resolver fenced the transaction: its rollback row holds the key, the INSERT fails, COMMIT is not run
        shard10.answer(
                "COM_QUERY " + COMMIT_ROW + "; COMMIT",
                Reply.err(1062, "23000", "Duplicate entry '" + GTRID + "' for key 'PRIMARY'"));
        shard10.answer("COM_QUERY ROLLBACK", Reply.ok(AUTOCOMMIT));
        String prepared =
                "XAER_RMFAIL: The command cannot be executed when global transaction is in the  PREPARED" + " state";
        shard20.answer("COM_QUERY XA END " + XID20, Reply.err(1399, "XAE07", prepared));
        // the resolver may have rolled the branch back already: XAER_NOTA counts as rolled back
        shard20.answer("COM_QUERY XA ROLLBACK " + XID20, Reply.err(1397, "XAE04", "XAER_NOTA: Unknown XID"));

        session.query("BEGIN");
        session.query(write10);
        session.query(write20);
        assertThat(session.query("COMMIT"))
                .containsExactly("ERR 1402 (XA100): Shardgate two-phase commit of transaction " + GTRID
                        + " (hostgroups [10, 20]) rolled back: a resolver rolled it back first (found its branches"
                        + " prepared with no decision and wrote the rollback on hostgroup 10)");
        assertThat(shard10.sent()).last().isEqualTo("COM_QUERY ROLLBACK");
        assertThat(shard20.sent()).last().isEqualTo("COM_QUERY XA ROLLBACK " + XID20);
    }

    @Test
    void aManagerTheServerRolledBackDecidesNothingAndEverythingRollsBack() {
        String write10 = "UPDATE accounts SET balance = 1 WHERE id = 1";
        String write20 = "UPDATE accounts SET balance = 1 WHERE id = 1001";
        RecordingBackend shard10 = session.shard(10);
        shard10.answer("COM_QUERY BEGIN", Reply.ok(IN_TRANS));
        // a deadlock rolled the manager's transaction back: its ERR carries no status, the probe's OK tells
        shard10.answer(
                "COM_QUERY " + write10,
                Reply.err(1213, "40001", "Deadlock found when trying to get lock; try restarting transaction"));
        shard10.answer("COM_QUERY " + XaCommit.PROBE, Reply.ok(AUTOCOMMIT));
        RecordingBackend shard20 = branch20(write20);
        shard20.answer("COM_QUERY XA END " + XID20 + "; XA PREPARE " + XID20, bothOk());

        session.query("BEGIN");
        assertThat(session.query(write10)).singleElement().asString().startsWith("ERR 1213");
        session.query(write20);
        assertThat(session.query("COMMIT"))
                .singleElement()
                .asString()
                .startsWith("ERR 1402 (XA100): Shardgate two-phase commit of transaction " + GTRID)
                .contains("the transaction on its metadata manager, hostgroup 10, was rolled back by the server");
        assertThat(shard10.sent())
                .as("no decision row inserted in autocommit")
                .doesNotContain("COM_QUERY " + COMMIT_ROW + "; COMMIT");
        assertThat(shard20.sent()).last().isEqualTo("COM_QUERY XA ROLLBACK " + XID20);
    }

    @Test
    void rollbackEndsTheManagerAndTheBranch() {
        String write10 = "DELETE FROM accounts WHERE id = 1";
        String write20 = "DELETE FROM accounts WHERE id = 1001";
        RecordingBackend shard10 = manager("BEGIN", write10);
        RecordingBackend shard20 = branch20(write20);
        shard10.answer("COM_QUERY ROLLBACK", Reply.ok(AUTOCOMMIT));

        session.query("BEGIN");
        session.query(write10);
        session.query(write20);
        assertThat(session.query("ROLLBACK")).containsExactly("OK affected=0 status=0x0002");

        assertThat(shard10.sent())
                .containsExactlyElementsOf(plus(managerBegins("BEGIN"), "COM_QUERY " + write10, "COM_QUERY ROLLBACK"));
        assertThat(shard20.sent())
                .containsExactly(
                        "COM_QUERY XA START " + XID20,
                        "COM_QUERY " + write20,
                        "COM_QUERY XA END " + XID20,
                        "COM_QUERY XA ROLLBACK " + XID20);
    }
}
