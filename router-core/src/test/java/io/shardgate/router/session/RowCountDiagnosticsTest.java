package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RowCountDiagnosticsTest {

    @Test
    void rowCountAloneBecomesAnAssignment() {
        RowCountDiagnostics d = RowCountDiagnostics.parse("GET DIAGNOSTICS @var = ROW_COUNT");
        assertThat(d.assignment(3)).isEqualTo("SET @var = 3");
        assertThat(d.assignment(-1)).isEqualTo("SET @var = -1");
        assertThat(d.rest()).isNull();
    }

    @Test
    void otherItemsStayForTheServer() {
        RowCountDiagnostics d =
                RowCountDiagnostics.parse("get current diagnostics @var1 = NUMBER, @`v 2` = row_count;");
        assertThat(d.assignment(0)).isEqualTo("SET @`v 2` = 0");
        assertThat(d.rest()).isEqualTo("GET CURRENT DIAGNOSTICS @var1 = NUMBER");
        RowCountDiagnostics two = RowCountDiagnostics.parse("GET DIAGNOSTICS @a = ROW_COUNT, @b = ROW_COUNT");
        assertThat(two.assignment(1)).isEqualTo("SET @a = 1, @b = 1");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "GET DIAGNOSTICS @var = NUMBER",
                "GET DIAGNOSTICS CONDITION 1 @n = MYSQL_ERRNO",
                "GET DIAGNOSTICS var = ROW_COUNT",
                "GET DIAGNOSTICS @a = ROW_COUNT, @A = NUMBER",
                "GET DIAGNOSTICS @a := ROW_COUNT",
                "GET DIAGNOSTICS @a = ROW_COUNT garbage",
                "SHOW WARNINGS",
                "SELECT ROW_COUNT()",
            })
    void anythingElseIsLeftToTheServer(String sql) {
        assertThat(RowCountDiagnostics.parse(sql)).isNull();
    }
}
