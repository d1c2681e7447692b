package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.fakebackend.Reply;
import io.shardgate.router.frontend.FakeShardsSession;
import io.shardgate.router.twophase.DecisionTable;
import io.shardgate.router.twophase.RouterEpochs;
import io.shardgate.router.twophase.TwoPhase;
import io.shardgate.router.twophase.TwoPhaseMetrics;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link QueryRouter} with a single-shard statement: relayed as the client sent it to exactly the
 * hostgroup the range rule names, its answer relayed back; the other shard hears nothing.
 */
class QueryRouterSingleShardTest {
    static final String YAML = """
            users: [{name: app, password: secret}]
            hostgroups:
              - {id: 10, writer: "fake10:3306", user: sg}
              - {id: 20, writer: "fake20:3306", user: sg}
            schemas:
              - name: bank
                default_hostgroup: 10
                tables:
                  - {name: accounts, strategy: range, column: id, ranges: [{below: 1000, hostgroup: 10}, {hostgroup: 20}]}
            """;
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;

    /** Two-phase commit unavailable (no ZooKeeper): these schemas are best_effort. */
    static TwoPhase noTwoPhase() {
        return new TwoPhase(
                7,
                new RouterEpochs(null, "/shardgate"),
                new DecisionTable(),
                new TwoPhaseMetrics(new SimpleMeterRegistry()));
    }

    private final FakeShardsSession session = new FakeShardsSession(YAML, "bank", noTwoPhase());

    @AfterEach
    void close() {
        session.close();
    }

    @Test
    void aPointSelectGoesToTheShardItsRangeNamesAndItsRowsAreRelayed() {
        assertThat(session.login()).containsExactly("OK affected=0 status=0x0002");
        session.shard(20)
                .answer(
                        "COM_QUERY SELECT balance FROM accounts WHERE id = 1001",
                        Reply.rows(List.of("balance"), AUTOCOMMIT, List.of(List.of("110"))));

        List<String> answer = session.query("SELECT balance FROM accounts WHERE id = 1001");

        assertThat(session.shard(20).sent()).containsExactly("COM_QUERY SELECT balance FROM accounts WHERE id = 1001");
        assertThat(session.shard(10).sent()).isEmpty();
        assertThat(answer).containsExactly("columns: balance", "row: 110", "EOF status=0x0002");
    }

    @Test
    void aWriteBelowTheBoundaryGoesToTheFirstShardAndItsOkIsRelayed() {
        session.shard(10)
                .answer("COM_QUERY UPDATE accounts SET balance = 0 WHERE id = 999", Reply.ok(1, 0, AUTOCOMMIT, 0));

        List<String> answer = session.query("UPDATE accounts SET balance = 0 WHERE id = 999");

        assertThat(session.shard(10).sent())
                .containsExactly("COM_QUERY UPDATE accounts SET balance = 0 WHERE id = 999");
        assertThat(session.shard(20).sent()).isEmpty();
        assertThat(answer).containsExactly("OK affected=1 status=0x0002");
    }
}
