package io.shardgate.sharding.digest;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.digest.StatementModifiers.Modifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StatementModifiersTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            UPDATE LOW_PRIORITY IGNORE t SET a = ?     | UPDATE                     t SET a = ?
            DELETE LOW_PRIORITY QUICK IGNORE FROM t    | DELETE                           FROM t
            delete quick from t                        | delete       from t
            INSERT DELAYED IGNORE INTO t VALUES (?)    | INSERT                INTO t VALUES (?)
            REPLACE LOW_PRIORITY INTO t VALUES (?)     | REPLACE              INTO t VALUES (?)
            SELECT DISTINCT SQL_NO_CACHE a FROM t      | SELECT DISTINCT              a FROM t
            SELECT DISTINCTROW a FROM t                | SELECT DISTINCT    a FROM t
            SELECT a FROM t WHERE b IN (SELECT SQL_CACHE b FROM u) | SELECT a FROM t WHERE b IN (SELECT           b FROM u)
            """)
    void blanksModifiersKeepingTheLength(String text, String expected) {
        String stripped = StatementModifiers.strip(text).parseText();
        assertThat(stripped).isEqualTo(expected).hasSameSizeAs(text);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            SELECT `IGNORE` FROM t
            UPDATE t SET t.ignore = ?
            SELECT REPLACE(a, ?, ?) FROM t
            SELECT a FROM t WHERE quick = ?
            SELECT @@sql_calc_found_rows
            INSERT INTO t (a) VALUES (?) ON DUPLICATE KEY UPDATE a = ?
            """)
    void leavesNamesAlone(String text) {
        StatementModifiers modifiers = StatementModifiers.strip(text);
        assertThat(modifiers.parseText()).isEqualTo(text);
        assertThat(modifiers.found()).isEmpty();
    }

    @Test
    void keepsWhatItFound() {
        assertThat(StatementModifiers.strip("SELECT SQL_CALC_FOUND_ROWS STRAIGHT_JOIN a FROM t")
                        .found())
                .containsExactlyInAnyOrder(Modifier.SQL_CALC_FOUND_ROWS, Modifier.STRAIGHT_JOIN);
    }
}
