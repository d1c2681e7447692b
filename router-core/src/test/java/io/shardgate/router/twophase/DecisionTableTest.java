package io.shardgate.router.twophase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class DecisionTableTest {
    private final DecisionTable table = new DecisionTable();
    private final Xid xid = new Xid(3, 42, 7, 10);

    @Test
    void theDecisionIsARowKeyedByTheTransactionsGlobalId() {
        assertThat(table.insert(xid, Outcome.COMMIT))
                .isEqualTo("INSERT INTO `shardgate`.`twophase_decisions` (id, outcome) VALUES ('sg.3.42.7.10',"
                        + " 'commit')");
        assertThat(table.insert(xid, Outcome.ROLLBACK)).endsWith("VALUES ('sg.3.42.7.10', 'rollback')");
        assertThat(table.select(xid))
                .isEqualTo("SELECT outcome FROM `shardgate`.`twophase_decisions` WHERE id = 'sg.3.42.7.10'");
        assertThat(table.createSteps().get(1))
                .startsWith("CREATE TABLE IF NOT EXISTS `shardgate`.`twophase_decisions` (id VARBINARY(64)"
                        + " PRIMARY KEY");
    }

    @Test
    void aHostgroupCreatesTheTableBeforeItsFirstManagerBeginOnly() {
        assertThat(table.beforeManagerBegin(10)).isEqualTo(table.createSteps());
        assertThat(table.beforeManagerBegin(10)).isEmpty();
        assertThat(table.beforeManagerBegin(20)).hasSize(2);
        table.missing(10);
        assertThat(table.beforeManagerBegin(10))
                .as("dropped behind the router's back")
                .hasSize(2);
    }

    @Test
    void finishedDecisionsAreDeletedInOneStatementAndOnlyShardgateIdsAreQuoted() {
        assertThat(table.delete(List.of())).isNull();
        assertThat(table.delete(List.of("sg.1.2.3.10", "sg.1.2.4.10")))
                .isEqualTo("DELETE FROM `shardgate`.`twophase_decisions` WHERE id IN ('sg.1.2.3.10', 'sg.1.2.4.10')");
        assertThatThrownBy(() -> table.delete(List.of("x'); DROP TABLE t; --")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(table.list(3600, 100))
                .isEqualTo("SELECT id, outcome, created_at < NOW(6) - INTERVAL 3600 SECOND FROM"
                        + " `shardgate`.`twophase_decisions` LIMIT 100");
    }

    @Test
    void aConfiguredNameIsPlainIdentifiersOnly() {
        assertThat(new DecisionTable("sg_meta", "decisions").name()).isEqualTo("`sg_meta`.`decisions`");
        assertThatThrownBy(() -> new DecisionTable("a`b", "t")).isInstanceOf(IllegalArgumentException.class);
    }
}
