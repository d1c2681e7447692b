package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.session.DiagnosticsEffect;
import io.shardgate.sharding.digest.Digest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MariaDB's own rule for its diagnostics area, probed on the real server (no router): after a
 * warning, a statement that raises nothing empties the area when it uses a table and leaves the
 * warning when it uses none; a condition replaces the area. Each statement the router classifies
 * as {@link DiagnosticsEffect#CLEARS} or {@link DiagnosticsEffect#KEEPS} is checked against what
 * the server does, so the classification the router trusts is the server's, not a guess; and the
 * reason table-less calls of stored functions are {@link DiagnosticsEffect#UNSURE} is shown too.
 */
@ExtendWith(ProxyClusterExtension.class)
class DiagnosticsAreaRulesIT {
    private static final String WARNING = "Warning|1365|Division by 0";

    private static ProxyCluster cluster;

    @BeforeAll
    static void schema(ProxyCluster shared) throws Exception {
        cluster = shared;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS dr_t");
            s.execute("CREATE TABLE dr_t (a INT PRIMARY KEY)");
            s.execute("INSERT INTO dr_t VALUES (1)");
            s.execute("DROP FUNCTION IF EXISTS dr_handled");
            // an error inside, handled: the caller's statement raises nothing
            s.execute("CREATE FUNCTION dr_handled() RETURNS INT BEGIN DECLARE x INT DEFAULT 0;"
                    + " DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SET x = 5;"
                    + " SELECT a INTO x FROM dr_missing LIMIT 1; RETURN x; END");
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT * FROM dr_t",
                "SELECT (SELECT a FROM dr_t)",
                "SELECT 1 WHERE EXISTS (SELECT 1 FROM dr_t)",
                "SELECT * FROM (SELECT 1) d",
                "SELECT * FROM (SELECT 1 FROM DUAL) d",
                "WITH c AS (SELECT 1) SELECT * FROM c",
                "SET @dr_z = (SELECT a FROM dr_t LIMIT 1)",
                "DO (SELECT 1 FROM information_schema.COLLATIONS LIMIT 0)",
                "SELECT TRIM(LEADING 'a' FROM 'ab') FROM dr_t",
                "SELECT dr_handled() FROM dr_t",
                "INSERT INTO dr_t VALUES (1) ON DUPLICATE KEY UPDATE a = a",
                "REPLACE INTO dr_t VALUES (1)",
                "UPDATE dr_t SET a = a WHERE 0",
                "DELETE FROM dr_t WHERE 0"
            })
    void statementsThatUseATableEmptyTheArea(String sql) throws Exception {
        assertThat(DiagnosticsEffect.of(Digest.of(sql))).as(sql).isEqualTo(DiagnosticsEffect.CLEARS);
        assertThat(afterWarning(sql)).as("SHOW WARNINGS after %s", sql).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT 1",
                "SELECT 1 FROM DUAL",
                "SELECT 1 FROM DUAL WHERE 0",
                "SELECT @@version, @dr_a",
                "SELECT NOW(), CONCAT('a', 'b'), COUNT(*)",
                "SELECT EXTRACT(YEAR FROM NOW())",
                "SELECT TRIM(LEADING 'a' FROM 'ab')",
                "SELECT SUBSTRING('abc' FROM 2)",
                "SELECT MID('abc' FROM 2 FOR 1)",
                "SELECT (SELECT 1)",
                "SELECT 1 UNION ALL SELECT 2 FROM DUAL",
                "SELECT IF(1, 2, 3), LEFT('ab', 1)",
                "SELECT 1 INTO @dr_y",
                "VALUES (1)",
                "DO 1",
                "SET @dr_x = 1",
                "SET SESSION sql_mode = DEFAULT",
                "SET NAMES utf8mb4",
                "SET autocommit = 1",
                "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
                "SET @dr_b = (SELECT 1)",
                "USE shop",
                "BEGIN",
                "SAVEPOINT dr_a",
                "COMMIT",
                "START TRANSACTION",
                "ROLLBACK"
            })
    void statementsWithoutTablesThatRaiseNothingKeepTheWarning(String sql) throws Exception {
        assertThat(DiagnosticsEffect.of(Digest.of(sql))).as(sql).isEqualTo(DiagnosticsEffect.KEEPS);
        assertThat(afterWarning(sql)).as("SHOW WARNINGS after %s", sql).containsExactly(WARNING);
    }

    @Test
    void aStoredFunctionCalledWithoutTablesMayEmptyTheAreaUnseen() throws Exception {
        String sql = "SELECT dr_handled()";
        assertThat(DiagnosticsEffect.of(Digest.of(sql))).isEqualTo(DiagnosticsEffect.UNSURE);
        // no table in the statement, nothing raised, and yet the warning is gone
        assertThat(afterWarning(sql)).isEmpty();
    }

    @Test
    void aConditionReplacesTheAreaWithOrWithoutTables() throws Exception {
        assertThat(afterWarning("SELECT CAST('x' AS SIGNED)"))
                .containsExactly("Warning|1292|Truncated incorrect INTEGER value: 'x'");
        assertThat(afterWarning("SELECT * FROM dr_missing"))
                .containsExactly("Error|1146|Table 'shop.dr_missing' doesn't exist");
        assertThat(afterWarning("SELECT dr_nosuch()")).hasSize(1).allMatch(line -> line.startsWith("Error|1305|"));
    }

    /** SHOW WARNINGS after {@code SELECT 1/0} and then {@code sql}, on one direct connection. */
    private static List<String> afterWarning(String sql) throws SQLException {
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("SELECT 1/0");
            try {
                s.execute(sql);
            } catch (SQLException expected) {
                // the error is what the area holds now
            }
            List<String> rows = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SHOW WARNINGS")) {
                while (rs.next()) {
                    rows.add(rs.getString(1) + "|" + rs.getInt(2) + "|" + rs.getString(3));
                }
            }
            return rows;
        }
    }
}
