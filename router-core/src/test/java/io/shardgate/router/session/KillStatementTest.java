package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class KillStatementTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "KILL 12                 | false | 12",
                "kill connection 12;     | false | 12",
                "KILL QUERY 7            | true  | 7",
                "/* ctrl-c */ KILL QUERY 7 | true | 7",
                "KILL HARD QUERY 7       | true  | 7",
                "KILL SOFT CONNECTION 3  | false | 3",
                "KILL (5)                | false | 5",
            })
    void readsTheSessionId(String sql, boolean query, long id) {
        assertThat(KillStatement.parse(sql)).isEqualTo(new KillStatement(query, id, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1", "SELECT kill FROM t", "SELECT 'KILL 5'", "UPDATE t SET skill = 1"})
    void otherStatementsAreNotKills(String sql) {
        assertThat(KillStatement.parse(sql)).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "KILL QUERY ID 99         | KILL QUERY ID",
                "KILL USER app            | KILL USER",
                "KILL 1 + 1               | an id other than a number",
                "KILL @id                 | an id other than a number",
                "KILL                     | an id other than a number",
                "KILL 99999999999999999999 | an id other than a number",
                "SELECT 1; KILL 5         | multi-statement",
                "/*M! KILL 5 */           | executable comment",
            })
    void refusesWhatItDoesNotCarryOut(String sql, String reason) {
        assertThat(KillStatement.parse(sql).refusal()).contains(reason);
    }

    @Test
    void aMySqlExecutableCommentIsCode() {
        // the session lexer reads /*!NNNNN ... */ as the server does: the KILL inside is the statement
        assertThat(KillStatement.parse("/*!50000 KILL 5 */")).isEqualTo(new KillStatement(false, 5, null));
    }

    @Test
    void aKillQueryIdIsAQueryKill() {
        assertThat(KillStatement.parse("KILL QUERY ID 3").query()).isTrue();
    }
}
