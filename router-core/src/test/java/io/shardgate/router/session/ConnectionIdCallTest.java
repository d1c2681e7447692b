package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.digest.Digest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

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

    @org.junit.jupiter.api.Test
    void forABackendTheIdIsTypedAsTheServerTypesConnectionId() {
        io.shardgate.sharding.digest.Digest digest =
                io.shardgate.sharding.digest.Digest.of("SELECT CONNECTION_ID(), 1 FROM t");
        assertThat(ConnectionIdCall.forBackend(digest, "SELECT CONNECTION_ID(), 1 FROM t", 42))
                .isEqualTo("SELECT CAST(0000000042 AS UNSIGNED) AS `CONNECTION_ID()`, 1 FROM t");
        assertThat(ConnectionIdCall.typed(4_294_967_295L)).isEqualTo("CAST(4294967295 AS UNSIGNED)");
        assertThat(ConnectionIdCall.typed(0)).isEqualTo("CAST(0000000000 AS UNSIGNED)");
        // an item the server would name by its text keeps that name
        assertThat(ConnectionIdCall.forBackend("select @a - connection_id(), connection_id() AS me", 7))
                .isEqualTo("select @a - CAST(0000000007 AS UNSIGNED) AS `@a - connection_id()`,"
                        + " CAST(0000000007 AS UNSIGNED) AS me");
        assertThat(ConnectionIdCall.forBackend("SELECT (SELECT CONNECTION_ID()) FROM t WHERE CONNECTION_ID() > 0", 7))
                .isEqualTo("SELECT (SELECT CAST(0000000007 AS UNSIGNED)) AS `(SELECT CONNECTION_ID())` FROM t WHERE"
                        + " CAST(0000000007 AS UNSIGNED) > 0");
        assertThat(ConnectionIdCall.forBackend("SELECT f(1), CONNECTION_ID() x", 7))
                .isEqualTo("SELECT f(1), CAST(0000000007 AS UNSIGNED) x");
        io.shardgate.sharding.digest.Digest none = io.shardgate.sharding.digest.Digest.of("SELECT 1");
        assertThat(ConnectionIdCall.forBackend(none, "SELECT 1", 42)).isEqualTo("SELECT 1");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {"SELECT 1", "SELECT CONNECTION_ID FROM t", "SELECT 'x' -- CONNECTION_ID()"})
    void returnsTheSameStringWithoutACall(String sql) {
        assertThat(ConnectionIdCall.substitute(sql, 7)).isSameAs(sql);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "CREATE VIEW v AS SELECT CONNECTION_ID() AS id",
                "create or replace algorithm=merge definer=`root`@`localhost` sql security invoker view v as"
                        + " select connection_id()",
                "CREATE DEFINER = 'app' @ '%' PROCEDURE p() SELECT CONNECTION_ID()",
                "CREATE FUNCTION f() RETURNS INT RETURN CONNECTION_ID()",
                "CREATE TRIGGER t BEFORE INSERT ON x FOR EACH ROW SET NEW.c = CONNECTION_ID()",
                "CREATE EVENT e ON SCHEDULE EVERY 1 HOUR DO INSERT INTO x VALUES (CONNECTION_ID())",
                "ALTER VIEW v AS SELECT connection_id()",
                "/* made by a tool */\n CREATE VIEW v AS SELECT CONNECTION_ID()",
                "PREPARE s FROM 'SELECT CONNECTION_ID()'",
                "EXECUTE IMMEDIATE 'KILL ' || connection_id()",
                "execute immediate concat('SELECT ', 'connection_id()')"
            })
    void refusesCallsTheServerWouldStoreOrParseLater(String sql) {
        assertThat(ConnectionIdCall.refusal(Digest.of(sql), sql)).isNotNull().contains("CONNECTION_ID()");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT CONNECTION_ID()",
                "CREATE TABLE t AS SELECT CONNECTION_ID() AS id",
                "CREATE VIEW v AS SELECT 1",
                "CREATE TABLE event (id INT)",
                "INSERT INTO log VALUES (CONNECTION_ID(), 'CREATE VIEW')",
                "PREPARE s FROM 'SELECT 1'",
                "EXECUTE s USING @a"
            })
    void answersTheCallsItCan(String sql) {
        assertThat(ConnectionIdCall.refusal(Digest.of(sql), sql)).isNull();
    }
}
