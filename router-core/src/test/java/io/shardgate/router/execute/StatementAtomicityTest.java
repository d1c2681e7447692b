package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.sharding.plan.StatementKind;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StatementAtomicityTest {
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;

    @ParameterizedTest
    @EnumSource(
            value = StatementKind.class,
            names = {"INSERT", "UPDATE", "DELETE"})
    void anAutocommitWriteOnSeveralShardsRunsInATransactionOnEach(StatementKind kind) {
        StatementAtomicity atomicity = StatementAtomicity.of(kind, 3, false, AUTOCOMMIT, false);
        assertThat(atomicity).isEqualTo(StatementAtomicity.TRANSACTION);
        assertThat(atomicity.begin(null, null, 10, null)).containsExactly("START TRANSACTION");
        assertThat(atomicity.before()).isNull();
        assertThat(atomicity.after(false)).isEqualTo("COMMIT");
        assertThat(atomicity.after(true)).isEqualTo("ROLLBACK");
    }

    @Test
    void insideATransactionASavepointUndoesJustTheStatement() {
        for (StatementAtomicity atomicity : new StatementAtomicity[] {
            StatementAtomicity.of(StatementKind.UPDATE, 2, true, AUTOCOMMIT, false),
            StatementAtomicity.of(
                    StatementKind.UPDATE, 2, false, AUTOCOMMIT | ServerStatus.SERVER_STATUS_IN_TRANS, false),
            StatementAtomicity.of(StatementKind.UPDATE, 2, false, 0, false) // autocommit off
        }) {
            assertThat(atomicity).isEqualTo(StatementAtomicity.SAVEPOINT);
            assertThat(atomicity.begin(List.of("START TRANSACTION READ WRITE", "SAVEPOINT a"), null, 10, null))
                    .containsExactly("START TRANSACTION READ WRITE", "SAVEPOINT a");
            assertThat(atomicity.before()).isEqualTo("SAVEPOINT shardgate_statement");
            assertThat(atomicity.after(false)).isNull();
            assertThat(atomicity.after(true)).isEqualTo("ROLLBACK TO SAVEPOINT shardgate_statement");
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = StatementKind.class,
            names = {"SELECT", "DDL", "SESSION", "SHOW", "OTHER"})
    void readsAndStatementsMySqlDoesNotUndoAreLeftAlone(StatementKind kind) {
        StatementAtomicity atomicity = StatementAtomicity.of(kind, 3, false, AUTOCOMMIT, false);
        assertThat(atomicity).isEqualTo(StatementAtomicity.NONE);
        assertThat(atomicity.begin(null, null, 10, null)).isNull();
        assertThat(atomicity.after(true)).isNull();
    }

    @Test
    void aWriteOnOneShardIsAtomicThereAlready() {
        assertThat(StatementAtomicity.of(StatementKind.INSERT, 1, false, AUTOCOMMIT, false))
                .isEqualTo(StatementAtomicity.NONE);
    }

    @Test
    void anAutocommitWriteOnSeveralShardsOfATwoPhaseSchemaRunsInXaBranches() {
        StatementAtomicity atomicity = StatementAtomicity.of(StatementKind.UPDATE, 2, false, AUTOCOMMIT, true);
        assertThat(atomicity).isEqualTo(StatementAtomicity.XA);
        io.shardgate.router.twophase.Xid xid = new io.shardgate.router.twophase.Xid(1, 2, 3).withManager(10);
        io.shardgate.router.twophase.DecisionTable decisions = new io.shardgate.router.twophase.DecisionTable();
        assertThat(atomicity.begin(null, xid, 20, decisions))
                .as("a shard other than the metadata manager joins with XA")
                .containsExactly("XA START 'sg.1.2.3.10','20',1397174851");
        assertThat(atomicity.begin(null, xid, 10, decisions))
                .as("the metadata manager runs a plain transaction, after creating the decision table once")
                .containsExactly(
                        "CREATE DATABASE IF NOT EXISTS `shardgate`",
                        decisions.createSteps().get(1),
                        "START TRANSACTION");
        assertThat(atomicity.begin(null, xid, 10, decisions)).containsExactly("START TRANSACTION");
        assertThat(atomicity.before()).isNull();
        assertThat(atomicity.after(false)).isNull(); // XaCommit ends it
        // inside a transaction (an XA one in a two_phase schema) a savepoint still undoes the statement
        assertThat(StatementAtomicity.of(StatementKind.UPDATE, 2, true, AUTOCOMMIT, true))
                .isEqualTo(StatementAtomicity.SAVEPOINT);
        // on one shard the server keeps it atomic: no XA, no extra round trip
        assertThat(StatementAtomicity.of(StatementKind.UPDATE, 1, false, AUTOCOMMIT, true))
                .isEqualTo(StatementAtomicity.NONE);
    }
}
