package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SelectItemsTest {

    /** The items found, by their text, joined with '|'. */
    private static String unnamed(String sql) {
        List<int[]> items = SelectItems.unnamed(sql);
        StringBuilder out = new StringBuilder();
        for (int[] item : items) {
            out.append(out.length() == 0 ? "" : "|").append(sql, item[0], item[1]);
        }
        return out.toString();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '#',
            value = {
                "SELECT connection_id()                                   # connection_id()",
                "select @a - connection_id()                              # @a - connection_id()",
                "SELECT DISTINCT f(1), 2, x, g() AS y, h() z FROM t        # f(1)|2",
                "SELECT a FROM t WHERE b IN (SELECT f(c) FROM u)            # f(c)",
                "SELECT (SELECT f()) FROM t                                # (SELECT f())",
                "SELECT * FROM (SELECT f()) d                              # f()",
                "SELECT CAST(1 AS UNSIGNED) + 1, @@warning_count           # CAST(1 AS UNSIGNED) + 1|@@warning_count",
                "INSERT INTO t SELECT f(), 'x' FROM u                      # f()",
                "SELECT f() INTO @v                                        # f()",
                "SELECT f(); SELECT g() x                                  # f()",
                "SET @a = f()                                              # ''",
                "UPDATE t SET a = f() WHERE b = (1)                        # ''",
                "SELECT TRIM(LEADING 'x' FROM f()) FROM t ORDER BY f(), 2  # TRIM(LEADING 'x' FROM f())",
                "SELECT t.* FROM t                                         # ''",
            })
    void findsItemsThatCertainlyHaveNoAlias(String sql, String expected) {
        assertThat(unnamed(sql.strip())).isEqualTo(expected.strip());
    }
}
