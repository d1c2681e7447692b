package io.shardgate.router.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SessionTransactionTest {

    @Test
    void hostgroupReachedLaterGetsTheBeginAndEverySavepointSetSoFar() {
        SessionTransaction t = new SessionTransaction();
        assertThat(t.beginSteps(10)).isNull();
        t.started("START TRANSACTION /*!40100 WITH CONSISTENT SNAPSHOT */");
        t.savepointStatement("SAVEPOINT sp");
        t.savepointStatement("SAVEPOINT `b``q`");

        assertThat(t.beginSteps(10))
                .containsExactly(
                        "START TRANSACTION /*!40100 WITH CONSISTENT SNAPSHOT */", "SAVEPOINT sp", "SAVEPOINT `b``q`");
    }

    @Test
    void savepointsFollowMySqlsRules() {
        SessionTransaction t = new SessionTransaction();
        t.declared("BEGIN", null, null);
        t.savepointStatement("SAVEPOINT a");
        t.savepointStatement("SAVEPOINT b");
        t.savepointStatement("SAVEPOINT c");
        t.savepointStatement("SAVEPOINT A"); // names ignore case: set again, it moves to the end
        assertThat(t.savepoints()).containsExactly("b", "c", "A");

        t.savepointStatement("ROLLBACK TO SAVEPOINT b"); // keeps b, drops those after it
        assertThat(t.savepoints()).containsExactly("b");
        t.savepointStatement("SAVEPOINT d");
        t.savepointStatement("rollback work to `d`");
        assertThat(t.savepoints()).containsExactly("b", "d");

        t.savepointStatement("RELEASE SAVEPOINT b"); // drops b and those after it
        assertThat(t.savepoints()).isEmpty();

        t.savepointStatement("SAVEPOINT e");
        t.savepointStatement("ROLLBACK TO SAVEPOINT unknown"); // the server's error; nothing changes here
        assertThat(t.savepoints()).containsExactly("e");
        t.end();
        assertThat(t.savepoints()).isEmpty();
        assertThat(t.beginSteps(10)).isNull();
    }

    @Test
    void savepointOutsideATransactionIsNotRemembered() {
        SessionTransaction t = new SessionTransaction();
        t.savepointStatement("SAVEPOINT a");
        t.started("BEGIN");
        assertThat(t.beginSteps(10)).containsExactly("BEGIN");
    }

    @Test
    void twoPhaseTransactionMakesItsFirstHostgroupTheManagerAndBeginsTheOthersWithXaStart() {
        SessionTransaction t = new SessionTransaction();
        io.shardgate.router.twophase.DecisionTable decisions = new io.shardgate.router.twophase.DecisionTable();
        decisions.beforeManagerBegin(20); // this router created the table on hostgroup 20 before
        t.declared("BEGIN", new io.shardgate.router.twophase.Xid(3, 42, 7), decisions);
        t.savepointStatement("SAVEPOINT sp");
        assertThat(t.xid().hasManager()).isFalse();
        assertThat(t.beginSteps(20))
                .as("the first hostgroup reached is the metadata manager: a plain BEGIN")
                .containsExactly("BEGIN", "SAVEPOINT sp");
        assertThat(t.xid().manager()).isEqualTo(20);
        assertThat(t.beginSteps(10)).containsExactly("XA START 'sg.3.42.7.20','10',1397174851", "SAVEPOINT sp");
        assertThat(t.beginSteps(30)).containsExactly("XA START 'sg.3.42.7.20','30',1397174851", "SAVEPOINT sp");
        assertThat(t.beginSteps(20)).containsExactly("BEGIN", "SAVEPOINT sp");
        t.end();
        assertThat(t.xid()).isNull();
        t.declared("BEGIN", new io.shardgate.router.twophase.Xid(3, 42, 8), decisions);
        assertThat(t.beginSteps(40))
                .as("a hostgroup first made a manager creates the decision table before its BEGIN")
                .containsExactly(
                        "CREATE DATABASE IF NOT EXISTS `shardgate`",
                        decisions.createSteps().get(1),
                        "BEGIN");
        t.end();
        assertThat(t.xid()).isNull();
        t.started("START TRANSACTION WITH CONSISTENT SNAPSHOT");
        assertThat(t.beginSteps(10)).containsExactly("START TRANSACTION WITH CONSISTENT SNAPSHOT");
    }

    @Test
    void aConnectionWithTheTransactionOpenNeedsNoBeginUnlessTheManagerIsStillToBeChosen() {
        SessionTransaction t = new SessionTransaction();
        assertThat(t.mayBegin(false)).as("outside a transaction").isFalse();
        t.declared("BEGIN", null, null);
        assertThat(t.mayBegin(false)).isTrue();
        assertThat(t.mayBegin(true)).isFalse();
        t.end();
        t.declared(
                "BEGIN",
                new io.shardgate.router.twophase.Xid(3, 42, 9),
                new io.shardgate.router.twophase.DecisionTable());
        assertThat(t.mayBegin(true))
                .as("the first hostgroup asked becomes the manager")
                .isTrue();
        t.beginSteps(20);
        assertThat(t.mayBegin(true)).isFalse();
        assertThat(t.mayBegin(false)).isTrue();
    }

    @Test
    void aBranchThatWroteStaysAWriter() {
        SessionTransaction t = new SessionTransaction();
        t.declared(
                "BEGIN",
                new io.shardgate.router.twophase.Xid(3, 42, 10),
                new io.shardgate.router.twophase.DecisionTable());
        t.ran(10, false);
        assertThat(t.wrote(10)).isFalse();
        assertThat(t.readOnlyBranches()).containsExactly(10);
        t.ran(10, true);
        t.ran(20, true);
        assertThat(t.wrote(10)).isTrue();
        assertThat(t.readOnlyBranches()).isEmpty();
    }
}
