package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.sharding.digest.Digest;
import java.util.List;
import org.junit.jupiter.api.Test;

class ImplicitCommitTest {
    private static final int AUTOCOMMIT_ON =
            ServerStatus.SERVER_STATUS_AUTOCOMMIT | ServerStatus.SERVER_STATUS_IN_TRANS;
    private static final int AUTOCOMMIT_OFF = ServerStatus.SERVER_STATUS_IN_TRANS;

    @Test
    void statementsMariaDbCommitsBeforeCount() {
        for (String sql : List.of(
                "CREATE TABLE t (x INT)",
                "create table if not exists t (x int)",
                "CREATE OR REPLACE TABLE t (x INT)",
                "ALTER TABLE t ADD COLUMN y INT",
                "DROP TABLE IF EXISTS t",
                "TRUNCATE TABLE t",
                "RENAME TABLE a TO b",
                "CREATE INDEX i ON t (x)",
                "GRANT SELECT ON d.* TO u",
                "ANALYZE TABLE t",
                "CHECK TABLE t",
                "OPTIMIZE TABLE t",
                "REPAIR TABLE t",
                "FLUSH TABLES",
                "RESET QUERY CACHE",
                "START SLAVE",
                "LOCK TABLES t WRITE")) {
            assertThat(ImplicitCommit.causedBy(Digest.of(sql), AUTOCOMMIT_ON))
                    .as(sql)
                    .isTrue();
        }
    }

    @Test
    void statementsThatLeaveTheTransactionOpen() {
        for (String sql : List.of(
                "CREATE TEMPORARY TABLE t (x INT)",
                "CREATE OR REPLACE TEMPORARY TABLE t (x INT)",
                "DROP TEMPORARY TABLE IF EXISTS t",
                "CACHE INDEX t IN default",
                "LOAD INDEX INTO CACHE t",
                "CHECKSUM TABLE t",
                "SELECT 1",
                "UPDATE t SET x = 1",
                "INSERT INTO t VALUES (1)",
                "START TRANSACTION",
                "DO 1",
                "UNLOCK TABLES",
                "SET time_zone = '+00:00'")) {
            assertThat(ImplicitCommit.causedBy(Digest.of(sql), AUTOCOMMIT_OFF))
                    .as(sql)
                    .isFalse();
        }
    }

    @Test
    void autocommitSwitchedOnCommitsOnlyWhenItWasOff() {
        assertThat(ImplicitCommit.causedBy(Digest.of("SET autocommit = 1"), AUTOCOMMIT_OFF))
                .isTrue();
        assertThat(ImplicitCommit.causedBy(Digest.of("SET autocommit = 1"), AUTOCOMMIT_ON))
                .as("already on: nothing to commit (MariaDB checked)")
                .isFalse();
        assertThat(ImplicitCommit.causedBy(Digest.of("SET autocommit = 0"), AUTOCOMMIT_OFF))
                .isFalse();
        assertThat(ImplicitCommit.causedBy(Digest.of("set @@session.autocommit=ON"), AUTOCOMMIT_OFF))
                .isTrue();
        assertThat(ImplicitCommit.causedBy(Digest.of("SET sql_mode = '', autocommit = 'OFF'"), AUTOCOMMIT_OFF))
                .isFalse();
        assertThat(ImplicitCommit.causedBy(Digest.of("SET autocommit = @saved"), AUTOCOMMIT_OFF))
                .as("a value not known: counts as on")
                .isTrue();
    }

    @Test
    void aBeginCommitsFirstWhereverTheTransactionReachedBeyondHome() {
        assertThat(ImplicitCommit.needed(List.of(10, 20), 10)).isTrue();
        assertThat(ImplicitCommit.needed(List.of(20), 10))
                .as("only another hostgroup")
                .isTrue();
    }

    @Test
    void aBeginOnHomeAloneEndsTheHomeTransactionByItself() {
        assertThat(ImplicitCommit.needed(List.of(10), 10)).isFalse();
        assertThat(ImplicitCommit.needed(List.of(), 10))
                .as("no transaction open")
                .isFalse();
    }
}
