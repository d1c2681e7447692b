package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StatementScannerTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT c FROM sbtest1 WHERE id=42",
                "select 'a@b.c', \"@x\", `@col` from t",
                "INSERT INTO t VALUES ('GET_LOCK(1)', 'LOCK TABLES')",
                "SELECT @@session.autocommit, @@version",
                "SELECT 1 -- @x\n",
                "SELECT 1 # SQL_CALC_FOUND_ROWS",
                "SELECT /* LAST_INSERT_ID() @x */ 1",
                "UPDATE t SET a = 1 WHERE b = 2",
                "",
                "   "
            })
    void ordinaryStatementsHaveNoEffects(String sql) {
        assertThat(StatementScanner.scan(sql)).isSameAs(StatementEffects.NONE);
    }

    @Test
    void pinsOnStateThatCannotBeReplayed() {
        Map<String, PinReason> cases = Map.ofEntries(
                Map.entry("SET @x = 1", PinReason.USER_VARIABLE),
                Map.entry("SELECT @x := id FROM t", PinReason.USER_VARIABLE),
                Map.entry("SELECT id INTO @`my var` FROM t", PinReason.USER_VARIABLE),
                Map.entry("select get_lock('a', 1)", PinReason.NAMED_LOCK),
                Map.entry("LOCK TABLES t WRITE", PinReason.LOCK_TABLES),
                Map.entry("lock table t read", PinReason.LOCK_TABLES),
                Map.entry("CREATE TEMPORARY TABLE tmp (a int)", PinReason.TEMPORARY_TABLE),
                Map.entry("SELECT SQL_CALC_FOUND_ROWS * FROM t LIMIT 1", PinReason.FOUND_ROWS),
                Map.entry("SELECT FOUND_ROWS()", PinReason.FOUND_ROWS),
                Map.entry("PREPARE s FROM 'SELECT 1'", PinReason.SQL_PREPARE),
                Map.entry("/*!40101 SET @saved_cs_client = @@character_set_client */", PinReason.USER_VARIABLE),
                Map.entry("/*!40000 LOCK TABLES t WRITE */", PinReason.LOCK_TABLES),
                Map.entry("SELECT /*M!100000 1, */ 2", PinReason.VERSIONED_COMMENT),
                Map.entry("HANDLER t OPEN", PinReason.HANDLER),
                Map.entry("XA START 'x'", PinReason.XA),
                Map.entry("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", PinReason.UNTRACKED_SET),
                Map.entry("SET ROLE admin", PinReason.UNTRACKED_SET),
                Map.entry("SET STATEMENT max_statement_time=1 FOR SELECT @x := 1", PinReason.USER_VARIABLE),
                Map.entry("SET STATEMENT lock_wait_timeout=1 FOR SELECT GET_LOCK('a', 1)", PinReason.NAMED_LOCK));
        cases.forEach((sql, reason) ->
                assertThat(StatementScanner.scan(sql).pins()).as(sql).contains(reason));
    }

    @Test
    void setStatementForLastsOneStatementAndLeavesNothingToReplay() {
        // the variables hold for the inner statement only (MariaDB Connector/J's query timeout)
        assertThat(StatementScanner.scan("SET STATEMENT max_statement_time=1 FOR SELECT 1"))
                .isSameAs(StatementEffects.NONE);
        assertThat(StatementScanner.scan("SET STATEMENT sql_mode='' FOR UPDATE t SET a = 1"))
                .isSameAs(StatementEffects.NONE);
    }

    @Test
    void readsTheContentOfExecutableCommentsAsCode() {
        assertThat(StatementScanner.scan("SELECT /*!40001 SQL_NO_CACHE */ * FROM t"))
                .isSameAs(StatementEffects.NONE);
        assertThat(StatementScanner.scan("/*!40000 ALTER TABLE t DISABLE KEYS */"))
                .isSameAs(StatementEffects.NONE);
        StatementEffects names = StatementScanner.scan("/*!40101 SET NAMES utf8mb4 */");
        assertThat(names.pins()).isEmpty();
        assertThat(names.variables()).containsEntry("names", "NAMES utf8mb4");
        assertThat(StatementScanner.scan("SELECT 1 /*!50000 , @x := 2 */").pins())
                .containsExactly(PinReason.USER_VARIABLE);
    }

    @Test
    void tracksReplayableSetAssignmentsInOrder() {
        StatementEffects effects = StatementScanner.scan(
                "SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci, sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE',"
                        + " @@session.time_zone='+00:00', SESSION autocommit=0, @@net_write_timeout = 600,"
                        + " character_set_results = NULL");
        assertThat(effects.pins()).isEmpty();
        assertThat(List.copyOf(effects.variables().values()))
                .containsExactly(
                        "NAMES utf8mb4 COLLATE utf8mb4_unicode_ci",
                        "sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE'",
                        "time_zone = '+00:00'",
                        "autocommit = 0",
                        "net_write_timeout = 600",
                        "character_set_results = NULL");
    }

    @Test
    void laterAssignmentsReplaceEarlierOnes() {
        StatementEffects effects = StatementScanner.scan("SET character_set_results = NULL, NAMES latin1");
        assertThat(effects.variables()).containsOnlyKeys("names");
        effects = StatementScanner.scan("set autocommit=1, sql_mode='', AUTOCOMMIT = 0");
        assertThat(List.copyOf(effects.variables().values())).containsExactly("sql_mode = ''", "autocommit = 0");
    }

    @Test
    void expressionsKeepTheirCommasInsideParentheses() {
        StatementEffects effects = StatementScanner.scan(
                "SET session_track_system_variables = CONCAT(@@global.session_track_system_variables, ',x'), autocommit=1");
        assertThat(effects.variables())
                .containsEntry(
                        "session_track_system_variables",
                        "session_track_system_variables = CONCAT(@@global.session_track_system_variables, ',x')")
                .containsEntry("autocommit", "autocommit = 1");
        assertThat(effects.pins()).isEmpty();
    }

    @Test
    void sessionTransactionIsReplayedAsItsOwnFragment() {
        StatementEffects effects = StatementScanner.scan("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
        assertThat(effects.pins()).isEmpty();
        assertThat(effects.variables())
                .containsExactly(
                        Map.entry("session transaction", "SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"));
    }

    @Test
    void globalAssignmentsAreNotSessionState() {
        assertThat(StatementScanner.scan("SET GLOBAL max_connections = 1000").variables())
                .isEmpty();
        assertThat(StatementScanner.scan("SET @@global.max_connections = 1000").pins())
                .isEmpty();
    }

    @Test
    void globalAssignmentsAreFlaggedForThePoolToRetireOlderConnections() {
        for (String sql : List.of(
                "SET GLOBAL max_allowed_packet = 4194304",
                "set @@global.max_allowed_packet=4194304",
                "SET @@GLOBAL.sql_mode = ''",
                "SET autocommit = 1, GLOBAL max_connections = 100",
                "SET SESSION sql_mode = '', @@global.sql_mode = ''",
                "/* comment */ SET PERSIST max_connections = 100",
                "SET PERSIST_ONLY max_connections = 100",
                "SET @@persist.max_connections = 100")) {
            assertThat(StatementScanner.scan(sql).changesGlobals()).as(sql).isTrue();
            assertThat(StatementScanner.scan(sql).isNone()).as(sql).isFalse();
        }
        StatementEffects mixed = StatementScanner.scan("SET autocommit = 0, GLOBAL max_connections = 100");
        assertThat(mixed.variables()).containsExactly(Map.entry("autocommit", "autocommit = 0"));
        assertThat(mixed.pins()).isEmpty();
        for (String sql : List.of(
                "SET max_allowed_packet = 4194304",
                "SET SESSION sql_mode = CONCAT(@@global.sql_mode, ',ANSI_QUOTES')",
                "SELECT @@global.max_allowed_packet",
                "SET @global = 1",
                "SELECT 'SET GLOBAL x = 1'",
                "SET NAMES utf8mb4")) {
            assertThat(StatementScanner.scan(sql).changesGlobals()).as(sql).isFalse();
        }
    }

    @Test
    void useSelectsASchema() {
        assertThat(StatementScanner.scan("USE shop").schema()).isEqualTo("shop");
        assertThat(StatementScanner.scan("use `my``db`").schema()).isEqualTo("my`db");
        assertThat(StatementScanner.scan("/* hi */ USE x;").schema()).isEqualTo("x");
    }

    @Test
    void noticesLastInsertIdReads() {
        assertThat(StatementScanner.scan("SELECT LAST_INSERT_ID()").readsLastInsertId())
                .isTrue();
        assertThat(StatementScanner.scan("SELECT 'LAST_INSERT_ID()'").readsLastInsertId())
                .isFalse();
    }

    @Test
    void unterminatedQuotesAndCommentsDoNotThrow() {
        for (String sql : List.of("SELECT 'abc", "SELECT `a", "SELECT /* x", "SET x = 'y", "SET", "SET x", "USE")) {
            assertThat(StatementScanner.scan(sql)).isNotNull();
        }
        assertThat(StatementScanner.scan("SET x").pins()).isEqualTo(Set.of(PinReason.UNTRACKED_SET));
    }
}
