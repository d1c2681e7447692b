package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.fakebackend.RecordingBackend;
import io.shardgate.router.fakebackend.Reply;
import io.shardgate.router.frontend.FakeShardsSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockBroadcast} through a real session on two fake shards: LOCK TABLES of a table ranged
 * over both shards runs on each, one after the other (the next only after the first's answer); the
 * connections stay pinned to the session (idle in no pool), and UNLOCK TABLES then reaches every
 * shard the session holds, the lower hostgroup first. A failed LOCK still reaches the other shard and is
 * the client's answer. A table on the home hostgroup alone is locked there, as a plain statement.
 */
class LockBroadcastTest {
    private static final String LOCK = "LOCK TABLES accounts WRITE";

    private final FakeShardsSession session =
            new FakeShardsSession(QueryRouterSingleShardTest.YAML, "bank", QueryRouterSingleShardTest.noTwoPhase());
    private final RecordingBackend shard10 = session.shard(10);
    private final RecordingBackend shard20 = session.shard(20);

    @AfterEach
    void close() {
        session.close();
    }

    @Test
    void lockTablesRunsOnEachShardOfTheTableInTurnAndPinsTheirConnections() {
        assertThat(shard10.idle()).isEqualTo(1);
        assertThat(shard20.idle()).isEqualTo(1);

        session.send(LOCK);
        // in hostgroup order, the same in every router: two sessions cannot lock two shards crosswise
        RecordingBackend first = shard10;
        RecordingBackend second = shard20;
        assertThat(first.sent()).containsExactly("COM_QUERY " + LOCK);
        assertThat(second.sent())
                .as("the next shard waits for the first one's answer")
                .isEmpty();
        first.serve();
        assertThat(second.sent()).containsExactly("COM_QUERY " + LOCK);
        assertThat(session.answers()).as("answered once every shard answered").isEmpty();
        session.settle();

        assertThat(session.answers()).containsExactly("OK affected=0 status=0x0002");
        assertThat(shard10.sent()).containsExactly("COM_QUERY " + LOCK);
        assertThat(shard20.sent()).containsExactly("COM_QUERY " + LOCK);
        assertThat(shard10.idle()).as("pinned to the session").isZero();
        assertThat(shard20.idle()).as("pinned to the session").isZero();
    }

    @Test
    void aStatementAfterLockTablesRunsOnThePinnedConnection() {
        session.query(LOCK);
        session.connection(20); // idle, first in line to be borrowed
        assertThat(shard20.idle()).isEqualTo(1);

        assertThat(session.query("UPDATE accounts SET balance = 0 WHERE id = 1001"))
                .containsExactly("OK affected=0 status=0x0002");

        assertThat(shard20.sent())
                .containsExactly("COM_QUERY " + LOCK, "COM_QUERY UPDATE accounts SET balance = 0 WHERE id = 1001");
        assertThat(shard20.idle()).as("the spare connection was not borrowed").isEqualTo(1);
    }

    @Test
    void unlockTablesRunsOnEveryShardTheSessionHoldsInTurn() {
        session.query(LOCK);

        session.send("UNLOCK TABLES");
        assertThat(shard10.sent()).containsExactly("COM_QUERY " + LOCK, "COM_QUERY UNLOCK TABLES");
        assertThat(shard20.sent()).containsExactly("COM_QUERY " + LOCK);
        session.settle();

        assertThat(session.answers()).containsExactly("OK affected=0 status=0x0002");
        assertThat(shard10.sent()).containsExactly("COM_QUERY " + LOCK, "COM_QUERY UNLOCK TABLES");
        assertThat(shard20.sent()).containsExactly("COM_QUERY " + LOCK, "COM_QUERY UNLOCK TABLES");
        assertThat(shard10.idle())
                .as("LockBroadcast pins for UNLOCK TABLES too: the connections stay the session's")
                .isZero();
        assertThat(shard20.idle()).isZero();
    }

    @Test
    void aLockFailingOnTheFirstShardStillRunsOnTheOtherAndIsTheAnswer() {
        session.send(LOCK);
        RecordingBackend first = shard10.sent().isEmpty() ? shard20 : shard10;
        RecordingBackend second = first == shard10 ? shard20 : shard10;
        first.answer("COM_QUERY " + LOCK, Reply.err(1146, "42S02", "Table 'bank.accounts' doesn't exist"));
        session.settle();

        assertThat(session.answers()).containsExactly("ERR 1146 (42S02): Table 'bank.accounts' doesn't exist");
        assertThat(first.sent()).containsExactly("COM_QUERY " + LOCK);
        assertThat(second.sent()).containsExactly("COM_QUERY " + LOCK);
    }

    @Test
    void aTableOnTheHomeHostgroupAloneIsLockedAndUnlockedThereOnly() {
        assertThat(session.query("LOCK TABLES branches READ")).containsExactly("OK affected=0 status=0x0002");
        assertThat(session.query("UNLOCK TABLES")).containsExactly("OK affected=0 status=0x0002");

        assertThat(shard10.sent()).containsExactly("COM_QUERY LOCK TABLES branches READ", "COM_QUERY UNLOCK TABLES");
        assertThat(shard20.sent()).isEmpty();
    }
}
