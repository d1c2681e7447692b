package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConnectionIdCallTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "SELECT CONNECTION_ID()                               | SELECT 42",
                "select connection_id ( ) AS me                       | select 42 AS me",
                "SELECT * FROM t WHERE owner = CONNECTION_ID() AND x=1 | SELECT * FROM t WHERE owner = 42 AND x=1",
                "KILL QUERY CONNECTION_ID()                           | KILL QUERY 42",
                "SELECT CONNECTION_ID(), CONNECTION_ID()              | SELECT 42, 42",
                "SELECT /*!50000 CONNECTION_ID() */                    | SELECT /*!50000 42 */",
                "SELECT 'CONNECTION_ID()'                             | SELECT 'CONNECTION_ID()'",
                "SELECT \"CONNECTION_ID()\"                             | SELECT \"CONNECTION_ID()\"",
                "SELECT 1 /* CONNECTION_ID() */                        | SELECT 1 /* CONNECTION_ID() */",
                "SELECT `CONNECTION_ID`()                             | SELECT `CONNECTION_ID`()",
                "SELECT db.CONNECTION_ID()                            | SELECT db.CONNECTION_ID()",
                "SELECT connection_id FROM t                          | SELECT connection_id FROM t",
                "SELECT CONNECTION_ID(1)                              | SELECT CONNECTION_ID(1)",
                "SELECT my_connection_id()                            | SELECT my_connection_id()",
            })
    void replacesCallsOnly(String sql, String expected) {
        assertThat(ConnectionIdCall.substitute(sql, 42)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {"SELECT 1", "SELECT CONNECTION_ID FROM t", "SELECT 'x' -- CONNECTION_ID()"})
    void returnsTheSameStringWithoutACall(String sql) {
        assertThat(ConnectionIdCall.substitute(sql, 7)).isSameAs(sql);
    }
}
