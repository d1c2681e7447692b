package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.session.SqlModeLexing.Hazard;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SqlModeLexingTest {
    private static final RuleSnapshot TWO_HOSTGROUPS = rules(10, 20);
    private static final RuleSnapshot ONE_HOSTGROUP = rules(10);

    private static RuleSnapshot rules(Integer... hostgroups) {
        SortedSet<Integer> ids = new TreeSet<>(List.of(hostgroups));
        return new RuleSnapshot(1, Map.of(), ids, List.of());
    }

    private static Set<Hazard> after(String... statements) {
        SessionVariables state = SessionVariables.initial("db");
        for (String sql : statements) {
            state = state.apply(StatementScanner.scan(sql));
        }
        return state.sqlModeHazards();
    }

    @Test
    void aSessionThatNeverSetTheModeReadsTextAsTheRouter() {
        assertThat(after()).isEmpty();
        assertThat(after("SET time_zone = '+00:00'")).isEmpty();
        assertThat(after("SET sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE,PIPES_AS_CONCAT'"))
                .isEmpty();
        assertThat(after("SET sql_mode = 'ANSI_QUOTES'", "SET sql_mode = DEFAULT"))
                .isEmpty();
        assertThat(after("SET sql_mode = ''")).isEmpty();
    }

    @Test
    void literalModesAreRead() {
        assertThat(after("SET sql_mode='ANSI_QUOTES'")).containsExactly(Hazard.DOUBLE_QUOTED_NAMES);
        assertThat(after("SET SESSION sql_mode = 'ansi'")).containsExactly(Hazard.DOUBLE_QUOTED_NAMES);
        assertThat(after("SET @@sql_mode = \"POSTGRESQL\"")).containsExactly(Hazard.DOUBLE_QUOTED_NAMES);
        assertThat(after("SET @@session.sql_mode = 'STRICT_ALL_TABLES, NO_BACKSLASH_ESCAPES'"))
                .containsExactly(Hazard.LITERAL_BACKSLASHES);
        assertThat(after("SET sql_mode = 'MYSQL40'")).containsExactly(Hazard.HIGH_NOT);
        assertThat(after("SET sql_mode = 'ORACLE'"))
                .containsExactlyInAnyOrder(Hazard.DOUBLE_QUOTED_NAMES, Hazard.ORACLE_GRAMMAR);
        for (String mode : List.of("DB2", "MAXDB", "MSSQL")) {
            assertThat(after("SET sql_mode = '" + mode + "'")).as(mode).contains(Hazard.DOUBLE_QUOTED_NAMES);
        }
    }

    @Test
    void addingModesWithConcatIsRead() {
        // Rails, and Connector/J when the server's default lacks STRICT_TRANS_TABLES
        assertThat(after("SET @@SESSION.sql_mode = CONCAT(CONCAT(@@sql_mode, ',STRICT_ALL_TABLES'),"
                        + " ',NO_AUTO_VALUE_ON_ZERO')"))
                .isEmpty();
        assertThat(after("SET sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')"))
                .containsExactly(Hazard.DOUBLE_QUOTED_NAMES);
        assertThat(after(
                        "SET sql_mode = 'MYSQL40'",
                        "SET sql_mode = concat(@@session.sql_mode, ',NO_BACKSLASH_ESCAPES')"))
                .containsExactlyInAnyOrder(Hazard.HIGH_NOT, Hazard.LITERAL_BACKSLASHES);
        assertThat(after("SET sql_mode = 'ANSI'", "SET sql_mode = @@sql_mode"))
                .containsExactly(Hazard.DOUBLE_QUOTED_NAMES);
    }

    @Test
    void aModeTheRouterCannotReadMayBeAnything() {
        assertThat(after("SET sql_mode = REPLACE(@@sql_mode, 'ANSI_QUOTES', '')"))
                .isEqualTo(SqlModeLexing.UNKNOWN);
        assertThat(after("SET sql_mode = CONCAT(@@sql_mode, @x)")).isEqualTo(SqlModeLexing.UNKNOWN);
        assertThat(after("SET sql_mode = 'ORACLE'", "SET sql_mode = CONCAT(@@sql_mode, @x)"))
                .as("what was known stays")
                .contains(Hazard.ORACLE_GRAMMAR, Hazard.LITERAL_BACKSLASHES);
        assertThat(after("SET @old = @@sql_mode", "SET sql_mode = @old")).isEqualTo(SqlModeLexing.UNKNOWN);
        // a copy of a literal the session set is that literal
        assertThat(after("SET sql_mode = 'ANSI'", "SET @old = @@sql_mode", "SET sql_mode = ''", "SET sql_mode = @old"))
                .containsExactly(Hazard.DOUBLE_QUOTED_NAMES);
    }

    @Test
    void doubleQuotedTokensUnderAnsiQuotes() {
        Set<Hazard> ansi = EnumSet.of(Hazard.DOUBLE_QUOTED_NAMES);
        assertThat(SqlModeLexing.refusal(ansi, "SELECT id, \"total\" FROM orders ORDER BY \"total\" DESC"))
                .contains("ANSI_QUOTES");
        assertThat(SqlModeLexing.refusal(ansi, "SELECT id FROM orders WHERE name = 'say \"hi\"' -- \"x\"\n"))
                .as("inside a string or a comment")
                .isNull();
        assertThat(SqlModeLexing.refusal(ansi, "SELECT `a\"b` FROM t /* \"c\" */"))
                .isNull();
        assertThat(SqlModeLexing.refusal(ansi, "SELECT /*!40001 \"x\" */ 1"))
                .as("executable comment")
                .isNotNull();
        assertThat(SqlModeLexing.refusal(Set.of(), "SELECT \"x\"")).isNull();
    }

    @Test
    void backslashesInStringsUnderNoBackslashEscapes() {
        Set<Hazard> literal = EnumSet.of(Hazard.LITERAL_BACKSLASHES);
        assertThat(SqlModeLexing.refusal(literal, "SELECT * FROM t WHERE id = 5 AND name = 'a\\' OR id = 7 -- '"))
                .contains("NO_BACKSLASH_ESCAPES");
        assertThat(SqlModeLexing.refusal(literal, "SELECT * FROM t WHERE name = 'it''s' AND id = 5"))
                .isNull();
        assertThat(SqlModeLexing.refusal(literal, "SELECT 1 # a \\ in a comment"))
                .isNull();
    }

    @Test
    void notUnderHighNotPrecedence() {
        Set<Hazard> high = EnumSet.of(Hazard.HIGH_NOT);
        assertThat(SqlModeLexing.refusal(high, "SELECT * FROM t WHERE NOT id BETWEEN 1 AND 5"))
                .contains("HIGH_NOT_PRECEDENCE");
        assertThat(SqlModeLexing.refusal(high, "SELECT note, nothing FROM t WHERE x = 'NOT'"))
                .isNull();
    }

    @Test
    void oracleRefusesEverythingWhereRoutingDependsOnTheText() {
        assertThat(SqlModeLexing.refusal(EnumSet.of(Hazard.ORACLE_GRAMMAR), "SELECT 1"))
                .contains("ORACLE");
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT id, \"total\" FROM orders ORDER BY \"total\"", "SELECT * FROM \"orders\""})
    void onlyRulesWithMoreThanOnePlaceNeedTheTextReadAsTheServerReadsIt(String sql) {
        Set<Hazard> ansi = EnumSet.of(Hazard.DOUBLE_QUOTED_NAMES);
        assertThat(SqlModeLexing.refusal(ansi, Set.of(), Digest.of(sql), sql, TWO_HOSTGROUPS))
                .isNotNull();
        assertThat(SqlModeLexing.refusal(ansi, Set.of(), Digest.of(sql), sql, ONE_HOSTGROUP))
                .isNull();
        assertThat(SqlModeLexing.refusal(Set.of(), Set.of(), Digest.of(sql), sql, TWO_HOSTGROUPS))
                .isNull();
    }

    @Test
    void aServersGlobalModeCountsWhateverTheSessionSet() {
        String sql = "SELECT \"total\" FROM orders";
        Set<Hazard> global = SqlModeLexing.ofGlobal("STRICT_TRANS_TABLES,ANSI_QUOTES,NO_ENGINE_SUBSTITUTION");
        assertThat(global).containsExactly(Hazard.DOUBLE_QUOTED_NAMES);
        assertThat(SqlModeLexing.refusal(Set.of(), global, Digest.of(sql), sql, TWO_HOSTGROUPS))
                .contains("ANSI_QUOTES");
        assertThat(SqlModeLexing.ofGlobal("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER"))
                .isEmpty();
        assertThat(SqlModeLexing.ofGlobal("")).isEmpty();
    }

    @Test
    void aStatementPrefixSettingTheModeMakesItUnknown() {
        String sql = "SET STATEMENT sql_mode = 'ANSI_QUOTES' FOR SELECT \"total\" FROM orders";
        assertThat(SqlModeLexing.refusal(Set.of(), Set.of(), Digest.of(sql), sql, TWO_HOSTGROUPS))
                .contains("ANSI_QUOTES");
        String timeout = "SET STATEMENT max_statement_time = 1 FOR SELECT \"total\" FROM orders";
        assertThat(SqlModeLexing.refusal(Set.of(), Set.of(), Digest.of(timeout), timeout, TWO_HOSTGROUPS))
                .isNull();
    }
}
