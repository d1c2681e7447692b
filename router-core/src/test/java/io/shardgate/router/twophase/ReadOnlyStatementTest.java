package io.shardgate.router.twophase;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.digest.Digest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReadOnlyStatementTest {
    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT balance FROM accounts WHERE id = 1",
                "select balance from accounts where id = 1 for update",
                "SELECT * FROM accounts WHERE id = 1 LOCK IN SHARE MODE",
                "SELECT COUNT(*), SUM(balance), MAX(id) FROM accounts",
                "SELECT CONCAT(name, '-'), IFNULL(note, 'x'), NOW() FROM accounts WHERE id IN (1, 2, 3)",
                "SELECT id FROM accounts WHERE id IN (SELECT id FROM accounts WHERE balance > 5)",
                "SELECT EXISTS (SELECT 1 FROM accounts)",
                "SELECT IF(balance > 0, 'a', 'b') FROM accounts",
                "(SELECT 1) UNION (SELECT 2)",
                "SELECT balance INTO @b FROM accounts WHERE id = 1",
                "SHOW TABLES",
                "DESCRIBE accounts",
                "SET @x = 5",
                "SELECT `balance` FROM `accounts`",
            })
    void readsChangeNoData(String sql) {
        assertThat(ReadOnlyStatement.is(Digest.of(sql))).as(sql).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "INSERT INTO accounts VALUES (1, 2)",
                "REPLACE INTO accounts VALUES (1, 2)",
                "UPDATE accounts SET balance = 1 WHERE id = 1",
                "DELETE FROM accounts WHERE id = 1",
                "CREATE TABLE t (id INT)",
                "ALTER TABLE accounts ADD COLUMN x INT",
                "TRUNCATE TABLE accounts",
                "CALL transfer(1, 2)",
                "DO audit(1)",
                "LOAD DATA LOCAL INFILE 'x' INTO TABLE accounts",
                "HANDLER accounts OPEN",
                "SELECT 1; DELETE FROM accounts",
                "SELECT audit(id) FROM accounts",
                "SELECT audit (id) FROM accounts",
                "SELECT bank.audit(id) FROM accounts",
                "SELECT `audit`(id) FROM accounts",
                "SELECT /*! audit(1), */ 1",
                "SELECT NEXTVAL(seq)",
                "SELECT NEXT VALUE FOR seq",
                "SET @x = audit(1)",
                "WITH a AS (SELECT 1) SELECT * FROM a",
                "XA END 'x'",
                "something unknown",
                "",
            })
    void everythingElseCountsAsAWrite(String sql) {
        assertThat(ReadOnlyStatement.is(Digest.of(sql))).as(sql).isFalse();
    }

    @org.junit.jupiter.api.Test
    void anUnknownStatementCountsAsAWrite() {
        assertThat(ReadOnlyStatement.is(null)).isFalse();
    }
}
