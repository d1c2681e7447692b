package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ProcesslistQueryTest {

    @Test
    void showProcesslist() {
        ProcesslistQuery q = ProcesslistQuery.parse("SHOW PROCESSLIST");
        assertThat(q.show()).isTrue();
        assertThat(q.full()).isFalse();
        assertThat(q.columns()).isEqualTo(ProcesslistQuery.COLUMNS);
        assertThat(ProcesslistQuery.parse("show full processlist;").full()).isTrue();
    }

    @Test
    void selectWithColumnsWhereAndOrder() {
        ProcesslistQuery q = ProcesslistQuery.parse("SELECT id, `User`, INFO FROM information_schema.processlist"
                + " WHERE user = 'app' AND command <> 'Sleep' AND ID != 4 ORDER BY time DESC");
        assertThat(q.refusal()).isNull();
        assertThat(q.show()).isFalse();
        assertThat(q.full()).isTrue();
        assertThat(q.columns()).containsExactly("ID", "USER", "INFO");
        assertThat(q.where())
                .containsExactly(
                        new ProcesslistQuery.Term("USER", true, "app"),
                        new ProcesslistQuery.Term("COMMAND", false, "Sleep"),
                        new ProcesslistQuery.Term("ID", false, 4L));
        assertThat(q.orderBy()).isEqualTo("TIME");
        assertThat(q.descending()).isTrue();
    }

    @Test
    void selectStar() {
        ProcesslistQuery q = ProcesslistQuery.parse("SELECT * FROM INFORMATION_SCHEMA.PROCESSLIST WHERE id = 9");
        assertThat(q.columns()).isEqualTo(ProcesslistQuery.COLUMNS);
        assertThat(q.where()).isEqualTo(List.of(new ProcesslistQuery.Term("ID", true, 9L)));
    }

    @Test
    void countItemsWithComparisons() {
        ProcesslistQuery q = ProcesslistQuery.parse("select count(*) = 1, COUNT(*),count(*)<>2, count(*) != 3,"
                + " count(*) < 4, count(*) <= 5, count(*) > 6, count(*) >= 7 from information_schema.processlist"
                + " where state = \"Waiting for table metadata lock\" and info = \"flush table t1\"");
        assertThat(q.refusal()).isNull();
        assertThat(q.columns()).isEmpty();
        assertThat(q.counts())
                .containsExactly(
                        new ProcesslistQuery.Count("count(*) = 1", "=", 1),
                        new ProcesslistQuery.Count("COUNT(*)", null, 0),
                        new ProcesslistQuery.Count("count(*)<>2", "<>", 2),
                        new ProcesslistQuery.Count("count(*) != 3", "<>", 3),
                        new ProcesslistQuery.Count("count(*) < 4", "<", 4),
                        new ProcesslistQuery.Count("count(*) <= 5", "<=", 5),
                        new ProcesslistQuery.Count("count(*) > 6", ">", 6),
                        new ProcesslistQuery.Count("count(*) >= 7", ">=", 7));
        assertThat(q.where())
                .containsExactly(
                        new ProcesslistQuery.Term("STATE", true, "Waiting for table metadata lock"),
                        new ProcesslistQuery.Term("INFO", true, "flush table t1"));
        assertThat(q.readsState()).isTrue();
        assertThat(q.counts().get(0).value(1)).isEqualTo(1);
        assertThat(q.counts().get(0).value(2)).isZero();
        assertThat(q.counts().get(1).value(2)).isEqualTo(2);
        assertThat(q.counts().get(7).value(7)).isEqualTo(1);
        assertThat(q.counts().get(6).value(6)).isZero();
    }

    @Test
    void readsStateWhenListedFilteredOrSorted() {
        assertThat(ProcesslistQuery.parse("SHOW PROCESSLIST").readsState()).isTrue();
        assertThat(ProcesslistQuery.parse("SELECT * FROM information_schema.PROCESSLIST")
                        .readsState())
                .isTrue();
        assertThat(ProcesslistQuery.parse("SELECT id FROM information_schema.PROCESSLIST ORDER BY state")
                        .readsState())
                .isTrue();
        assertThat(ProcesslistQuery.parse("SELECT id, info FROM information_schema.PROCESSLIST WHERE user = 'a'")
                        .readsState())
                .isFalse();
        assertThat(ProcesslistQuery.parse("SELECT COUNT(*) FROM information_schema.PROCESSLIST")
                        .readsState())
                .isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT COUNT(id) FROM information_schema.PROCESSLIST",
                "SELECT COUNT(DISTINCT user) FROM information_schema.PROCESSLIST",
                "SELECT COUNT (*) FROM information_schema.PROCESSLIST",
                "SELECT COUNT(*), id FROM information_schema.PROCESSLIST",
                "SELECT COUNT(*) = 1.0 FROM information_schema.PROCESSLIST",
                "SELECT COUNT(*) = '1' FROM information_schema.PROCESSLIST",
                "SELECT COUNT(*) <=> 1 FROM information_schema.PROCESSLIST",
                "SELECT COUNT(*) = -1 FROM information_schema.PROCESSLIST",
                "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST",
                "SELECT COUNT(*) + 1 FROM information_schema.PROCESSLIST",
                "SELECT id FROM information_schema.PROCESSLIST WHERE time > 5",
                "SELECT id FROM information_schema.PROCESSLIST WHERE id = '5'",
                "SELECT id FROM information_schema.PROCESSLIST WHERE user = 5",
                "SELECT id FROM information_schema.PROCESSLIST WHERE user = 'é'",
                "SELECT id FROM information_schema.PROCESSLIST WHERE user = 'app '",
                "SELECT id FROM information_schema.PROCESSLIST WHERE user = 'a' OR user = 'b'",
                "SELECT memory_used FROM information_schema.PROCESSLIST ORDER BY memory_used",
                "SELECT id FROM information_schema.PROCESSLIST WHERE memory_used = 5",
                "SELECT p.id FROM information_schema.PROCESSLIST p",
                "SELECT * FROM t WHERE id IN (SELECT id FROM information_schema.processlist)",
                "SELECT * FROM information_schema.`PROCESSLIST`",
                "SELECT id FROM information_schema.PROCESSLIST LIMIT 1",
            })
    void refusesOtherForms(String sql) {
        assertThat(ProcesslistQuery.parse(sql).refusal()).isNotNull();
    }

    @Test
    void aServerThreadsColumnsAreReadOnlyForTheSessionsOwnRowOnItsOwnConnection() {
        String own = "select memory_used from information_schema.processlist where id=connection_id()";
        assertThat(ProcesslistQuery.parse(ConnectionIdCall.substitute(own, 7)).readsBackendColumns())
                .isTrue();
        assertThat(ProcesslistQuery.backendColumnsRefusal(own, true)).isNull();
        assertThat(ProcesslistQuery.backendColumnsRefusal(own, false))
                .as("a pooled connection's thread serves other sessions too")
                .contains("MEMORY_USED", "while it holds its backend connection");
        assertThat(ProcesslistQuery.backendColumnsRefusal(
                        "SELECT STATE, INFO, SENT_ROWS FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID ( )",
                        true))
                .isNull();
        for (String other : List.of(
                "SELECT memory_used FROM information_schema.PROCESSLIST",
                "SELECT memory_used FROM information_schema.PROCESSLIST WHERE id = 7",
                "SELECT memory_used FROM information_schema.PROCESSLIST WHERE id = CONNECTION_ID() AND user = 'a'",
                "SELECT memory_used FROM information_schema.PROCESSLIST WHERE id <> CONNECTION_ID()",
                "SELECT id, memory_used FROM information_schema.PROCESSLIST WHERE id = CONNECTION_ID()",
                "SELECT user, memory_used FROM information_schema.PROCESSLIST WHERE id = CONNECTION_ID()",
                "SELECT host, memory_used FROM information_schema.PROCESSLIST WHERE id = CONNECTION_ID()")) {
            assertThat(ProcesslistQuery.parse(ConnectionIdCall.substitute(other, 7))
                            .refusal())
                    .as(other)
                    .isNull();
            assertThat(ProcesslistQuery.backendColumnsRefusal(other, true))
                    .as(other)
                    .isNotNull();
        }
        assertThat(ProcesslistQuery.parse("SELECT id, info FROM information_schema.PROCESSLIST")
                        .readsBackendColumns())
                .isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT 1",
                "SHOW TABLES",
                "SELECT 'information_schema.processlist'",
                "SELECT processlist FROM t",
                "SHOW PROCESSLIST extra",
            })
    void otherStatementsAreNotProcesslistQueries(String sql) {
        assertThat(ProcesslistQuery.parse(sql)).isNull();
    }

    @Test
    void unquotesStrings() {
        assertThat(ProcesslistQuery.unquote("'it''s'")).isEqualTo("it's");
        assertThat(ProcesslistQuery.unquote("'a\\'b'")).isEqualTo("a'b");
    }
}
