package io.shardgate.sharding.digest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class StatementPrefixTest {

    @Test
    void findsTheAssignmentsAndTheInnerStatement() {
        StatementPrefix p = StatementPrefix.of("SET STATEMENT max_statement_time=1 FOR SELECT * FROM t");
        assertThat(p.text()).isEqualTo("SET STATEMENT max_statement_time=1 FOR ");
        assertThat(p.variables()).containsExactly("max_statement_time");
        assertThat(p.severalShardsRefusal()).isNull();

        StatementPrefix q = StatementPrefix.of(
                "  set  /* c */ statement Sql_Mode = 'a,b', SQL_SELECT_LIMIT=(1+1)\n for\tUPDATE t SET a = 1");
        assertThat(q.variables()).containsExactly("sql_mode", "sql_select_limit");
        assertThat(q.text()).endsWith("for\t");
        assertThat(q.severalShardsRefusal()).contains("sql_mode, sql_select_limit");
    }

    @Test
    void aForInsideAQuotedValueIsNotTheKeyword() {
        StatementPrefix p = StatementPrefix.of("SET STATEMENT sql_mode='x FOR y' FOR SELECT 1");
        assertThat(p.text()).isEqualTo("SET STATEMENT sql_mode='x FOR y' FOR ");
    }

    @Test
    void otherStatementsHaveNone() {
        for (String sql : List.of(
                "SET @a = 1",
                "SET max_statement_time = 1",
                "SELECT 1",
                "SET STATEMENT max_statement_time=1 FOR",
                "SET STATEMENT FOR SELECT 1",
                "SET STATEMENT max_statement_time=? FOR SELECT 1",
                "SET STATEMENTS x=1 FOR SELECT 1")) {
            assertThat(StatementPrefix.of(sql)).as(sql).isNull();
        }
    }

    @Test
    void theDigestIsTheInnerStatementsWithThePrefixKeptAside() {
        Digest d = Digest.of("SET STATEMENT max_statement_time=5 FOR SELECT a FROM t WHERE id = 42");
        assertThat(d.text()).isEqualTo("SELECT a FROM t WHERE id = ?");
        assertThat(d.sql()).isEqualTo("SELECT a FROM t WHERE id = 42");
        assertThat(d.prefix().text()).isEqualTo("SET STATEMENT max_statement_time=5 FOR ");
        // another variable can change the plan: another hash; another value of it cannot
        assertThat(d.hash())
                .isNotEqualTo(Digest.of("SELECT a FROM t WHERE id = 42").hash());
        assertThat(d.hash())
                .isEqualTo(Digest.of("SET STATEMENT max_statement_time=9 FOR SELECT a FROM t WHERE id = 1")
                        .hash());
        assertThat(d.hash())
                .isNotEqualTo(Digest.of("SET STATEMENT sql_select_limit=5 FOR SELECT a FROM t WHERE id = 1")
                        .hash());
    }
}
