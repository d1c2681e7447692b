package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DiagnosticsStatementTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SHOW WARNINGS",
                "show warnings limit 2",
                "SHOW WARNINGS LIMIT 1, 3",
                "  /* driver */ SHOW ERRORS",
                "SHOW COUNT(*) WARNINGS",
                "show count ( * ) errors",
                "SELECT @@warning_count",
                "select @@session.warning_count",
                "SELECT @@local.error_count, @@warning_count",
                "SELECT @@warning_count;",
                "GET DIAGNOSTICS @n = NUMBER",
                "GET CURRENT DIAGNOSTICS CONDITION 1 @m = MESSAGE_TEXT"
            })
    void readsThePreviousStatementsDiagnostics(String sql) {
        assertThat(DiagnosticsStatement.is(sql)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "SHOW VARIABLES LIKE 'warning_count'",
                "SHOW TABLES",
                "SHOW COUNT(id) WARNINGS",
                "SELECT @@global.warning_count",
                "SELECT @@warning_count + 1",
                "SELECT @@warning_count, 1",
                "SELECT @@max_allowed_packet",
                "SELECT 1; SHOW WARNINGS",
                "SELECT @@warning_count; SELECT 1",
                "GET STACKED DIAGNOSTICS @n = NUMBER",
                "SELECT warning_count FROM t"
            })
    void othersAreOrdinaryStatements(String sql) {
        assertThat(DiagnosticsStatement.is(sql)).isFalse();
    }
}
