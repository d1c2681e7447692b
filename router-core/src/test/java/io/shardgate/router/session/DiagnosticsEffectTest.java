package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.digest.Digest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which statements prove what they do to the diagnostics area (the rules DiagnosticsAreaRulesIT checks on MariaDB). */
class DiagnosticsEffectTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT * FROM t",
                "select a from `t` where a = 1",
                "SELECT 1 FROM information_schema.COLLATIONS LIMIT 0",
                "SELECT (SELECT a FROM t)",
                "SELECT 1 WHERE EXISTS (SELECT 1 FROM t)",
                "SELECT * FROM (SELECT 1) d",
                "SELECT * FROM (SELECT 1 FROM DUAL) d",
                "WITH c AS (SELECT 1) SELECT * FROM c",
                "SET @z = (SELECT 1 FROM t)",
                "DO (SELECT 1 FROM information_schema.COLLATIONS LIMIT 0)",
                "SELECT TRIM(LEADING 'a' FROM 'ab') FROM t",
                "SELECT f() FROM t",
                "(SELECT 1) UNION (SELECT 2 FROM t)",
                "INSERT INTO t VALUES (1)",
                "REPLACE INTO t VALUES (1)",
                "UPDATE t SET a = a WHERE 0",
                "DELETE FROM t WHERE 0"
            })
    void aStatementThatUsesATableClearsTheArea(String sql) {
        assertThat(DiagnosticsEffect.of(Digest.of(sql))).isEqualTo(DiagnosticsEffect.CLEARS);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT 1",
                "select 2",
                "SELECT 1 FROM DUAL",
                "SELECT 1 FROM DUAL WHERE 0",
                "SELECT 1/0, CAST('x' AS SIGNED)",
                "SELECT @@version, @a",
                "SELECT NOW(), CONCAT('a', 'b'), COUNT(*)",
                "SELECT EXTRACT(YEAR FROM NOW())",
                "SELECT TRIM(LEADING 'a' FROM 'ab')",
                "SELECT SUBSTRING('abc' FROM 2)",
                "SELECT MID('abc' FROM 2 FOR 1)",
                "SELECT (SELECT 1)",
                "SELECT 1 UNION ALL SELECT 2 FROM DUAL",
                "SELECT IF(1, 2, 3), LEFT('ab', 1)",
                "SELECT 1 INTO @y",
                "VALUES (1)",
                "DO 1",
                "SET @x = 1",
                "SET SESSION sql_mode = DEFAULT",
                "SET NAMES utf8mb4",
                "SET autocommit = 1",
                "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
                "SET @b = (SELECT 1)",
                "USE shop",
                "BEGIN",
                "START TRANSACTION",
                "COMMIT",
                "ROLLBACK",
                "SAVEPOINT a"
            })
    void aStatementWithoutTablesKeepsTheArea(String sql) {
        assertThat(DiagnosticsEffect.of(Digest.of(sql))).isEqualTo(DiagnosticsEffect.KEEPS);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                // a stored function may empty the area without raising anything (a handled error)
                "SELECT f()",
                "SELECT shop.f()",
                "SELECT `f`()",
                "SET @a = f()",
                "DO f()",
                // a sequence is a table, read without FROM
                "SELECT NEXTVAL(s)",
                "SELECT NEXT VALUE FOR s",
                "SELECT PREVIOUS VALUE FOR s",
                // by kind: some clear, some keep
                "SHOW VARIABLES LIKE 'x'",
                "SHOW GRANTS",
                "CALL p()",
                "EXPLAIN SELECT 1",
                "DESCRIBE t",
                "WITH c AS (SELECT 1) SELECT 1",
                "BEGIN NOT ATOMIC SELECT 1; END",
                "SET PASSWORD = PASSWORD('x')",
                "SET GLOBAL max_connections = 10",
                "SET @@global.max_connections = 10",
                "SET ROLE r",
                "XA START 'x'",
                "ROLLBACK TO SAVEPOINT a",
                // what the digest does not read, or several statements
                "SELECT 1 /*M! FROM t */",
                "SET STATEMENT max_statement_time = 1 FOR SELECT 1",
                "SELECT 1; SELECT 2",
                // a FROM the scan cannot place
                "SELECT 1 FROM",
                "SELECT POSITION('a' IN (SELECT 'b')) FROM \"t\"",
                "SELECT 1)",
                ""
            })
    void anythingElseIsUnsure(String sql) {
        assertThat(DiagnosticsEffect.of(Digest.of(sql))).isEqualTo(DiagnosticsEffect.UNSURE);
    }
}
