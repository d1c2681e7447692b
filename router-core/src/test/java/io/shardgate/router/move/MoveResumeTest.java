package io.shardgate.router.move;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLSyntaxErrorException;
import org.junit.jupiter.api.Test;

class MoveResumeTest {
    @Test
    void aLostOrRefusedConnectionAnywhereInTheCausesResumes() {
        assertThat(MoveResume.connectionLost(new SQLNonTransientConnectionException("socket closed", "08000", 1927)))
                .isTrue();
        assertThat(MoveResume.connectionLost(new SQLException("Server shutdown in progress", "08S01", 1053)))
                .isTrue();
        assertThat(MoveResume.connectionLost(new SQLException("gone away", "HY000", 2006)))
                .isTrue();
        assertThat(MoveResume.connectionLost(new IllegalStateException(
                        "the binary log catch-up of 20 stopped",
                        new IllegalStateException("the binary log stream ended", new EOFException()))))
                .isTrue();
        assertThat(MoveResume.connectionLost(
                        new SQLException("cannot connect", "HY000", 0, new ConnectException("refused"))))
                .isTrue();
    }

    @Test
    void whatTheMoveItselfGotWrongFailsIt() {
        assertThat(MoveResume.connectionLost(
                        new IllegalStateException("verify: 3 rows of orders differ between the source and the target")))
                .isFalse();
        assertThat(MoveResume.connectionLost(new SQLSyntaxErrorException("Unknown column", "42S22", 1054)))
                .isFalse();
        assertThat(MoveResume.connectionLost(new SQLException("Lock wait timeout exceeded", "HY000", 1205)))
                .isFalse();
        assertThat(MoveResume.connectionLost(new IllegalArgumentException("no primary key")))
                .isFalse();
    }

    @Test
    void aMoveResumesAtMostTheLimit() {
        SQLException lost = new SQLNonTransientConnectionException("Connection refused", "08000", 0);
        assertThat(MoveResume.resumes(lost, 0)).isTrue();
        assertThat(MoveResume.resumes(lost, MoveResume.LIMIT - 1)).isTrue();
        assertThat(MoveResume.resumes(lost, MoveResume.LIMIT)).isFalse();
        assertThat(MoveResume.resumes(new IllegalStateException("differ"), 0)).isFalse();
    }

    @Test
    void aCycleOfCausesEnds() {
        Exception a = new Exception("a");
        Exception b = new Exception("b", a);
        a.initCause(b);
        assertThat(MoveResume.connectionLost(a)).isFalse();
    }
}
