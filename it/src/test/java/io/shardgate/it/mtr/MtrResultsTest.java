package io.shardgate.it.mtr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.mtr.MtrResults.Outcome;
import io.shardgate.it.mtr.MtrTestList.KnownDifference;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MtrResultsTest {
    private static final KnownDifference WHY = new KnownDifference("why", false);
    /** Lines as mariadb-test-run 10.11 printed them in a run of this IT. */
    private static final String OUTPUT = String.join(
            "\n",
            "Logging: mariadb-test-run.pl  --extern host=127.0.0.1 --extern port=34501",
            "==============================================================================",
            "TEST                                      RESULT   TIME (ms) or COMMENT",
            "--------------------------------------------------------------------------",
            "worker[01] Using MTR_BUILD_THREAD 300, with reserved ports 19000..19029",
            "main.alias                               [ pass ]     35",
            "main.select                              [ fail ]",
            "        Test ended at 2026-11-27 05:45:18",
            "main.lock_sync                           [ skipped ]  debug_sync is not available",
            "main.events_time_zone                    [ disabled ]  Test is not predictable",
            "main.type_bit 'innodb'                   [ pass ]    120",
            "main.sp-vars                             [ retry-fail ]",
            "--------------------------------------------------------------------------",
            "Completed: Failed 2/4 tests, 50.00% were successful.",
            "");

    @Test
    void readsEachTestsOutcomeAndTheClosingLine() {
        MtrResults results = MtrResults.parse(OUTPUT);

        assertThat(results.outcomes())
                .containsExactly(
                        Map.entry("main.alias", Outcome.PASS),
                        Map.entry("main.select", Outcome.FAIL),
                        Map.entry("main.lock_sync", Outcome.SKIPPED),
                        Map.entry("main.events_time_zone", Outcome.DISABLED),
                        Map.entry("main.type_bit 'innodb'", Outcome.PASS),
                        Map.entry("main.sp-vars", Outcome.FAIL));
        assertThat(results.completed()).isEqualTo("Completed: Failed 2/4 tests, 50.00% were successful.");
        assertThat(results.summary()).startsWith("2 passed, 2 failed, 1 skipped, 1 disabled (Completed:");
    }

    /** A failure's report as mariadb-test-run 10.11 printed it (issue 23, main.metadata through the router). */
    private static final String FAILURE = String.join(
            "\n",
            "worker[01] Using MTR_BUILD_THREAD 300, with reserved ports 19000..19029",
            "main.insert_update_autoinc-7150          [ pass ]     69",
            "main.metadata                            [ fail ]",
            "        Test ended at 2026-11-27 20:58:21",
            "",
            "--- /usr/share/mysql/mysql-test/main/metadata.result\t2026-09-18 08:08:08.000000000 +0000",
            "+++ /usr/share/mysql/mysql-test/main/metadata.reject\t2026-11-27 20:58:21.641264121 +0000",
            "@@ -528,7 +528,7 @@",
            " LAST_INSERT_ID()",
            "-0",
            "+2",
            " SELECT ROW_COUNT(), FOUND_ROWS();",
            "",
            "Result content mismatch",
            "",
            " - saving '/tmp/files/multiplexing-false/log/main.metadata/' to '/tmp/files/multiplexing-false/log/main.metadata/'",
            "--------------------------------------------------------------------------",
            "The servers were restarted 0 times",
            "main.json_equals                         [ fail ]  timeout after 120 seconds",
            "Completed: Failed 2/3 tests, 33.33% were successful.",
            "Failing test(s): main.metadata main.json_equals",
            "");

    @Test
    void keepsEachFailedTestsReportUpToTheRunnersNextLine() {
        MtrResults results = MtrResults.parse(FAILURE);

        assertThat(results.failures()).containsOnlyKeys("main.metadata", "main.json_equals");
        assertThat(results.failure("main.metadata"))
                .startsWith("main.metadata                            [ fail ]\n        Test ended at")
                .contains("@@ -528,7 +528,7 @@\n LAST_INSERT_ID()\n-0\n+2\n", "Result content mismatch")
                .endsWith("log/main.metadata/'")
                .doesNotContain("servers were restarted");
        assertThat(results.failure("main.json_equals"))
                .as("a report that is its result line only, up to the closing line")
                .isEqualTo("main.json_equals                         [ fail ]  timeout after 120 seconds");
        assertThat(results.failure("main.insert_update_autoinc-7150")).contains("printed no report");
        assertThat(MtrResults.parse(OUTPUT).failure("main.select")).endsWith("Test ended at 2026-11-27 05:45:18");
    }

    @Test
    void aRunThatStoppedEarlySaysSo() {
        MtrResults results = MtrResults.parse("main.alias     [ pass ]  3\n");
        assertThat(results.completed()).contains("stopped before the end");
        assertThat(results.outcome("main.select")).isNull();
    }

    @Test
    void comparisonCountsOnlyTestsThatPassDirectly() {
        MtrResults direct = MtrResults.parse(OUTPUT);
        MtrResults routed = MtrResults.parse(String.join(
                "\n", "main.alias        [ fail ]", "main.select       [ pass ]", "main.type_bit 'innodb'   [ pass ]"));
        List<String> tests = List.of("main.alias", "main.select", "main.type_bit 'innodb'", "main.lock_sync");

        MtrComparison none = MtrComparison.of(tests, direct, routed, Map.of());
        assertThat(none.regressions()).containsExactly("main.alias (FAIL)");
        assertThat(none.failedDirectly()).containsExactly("main.select (FAIL)", "main.lock_sync (SKIPPED)");

        MtrComparison listed =
                MtrComparison.of(tests, direct, routed, Map.of("main.alias", WHY, "main.type_bit 'innodb'", WHY));
        assertThat(listed.regressions()).isEmpty();
        assertThat(listed.known()).containsExactly("main.alias");
        assertThat(listed.fixed())
                .as("a listed difference that passes must leave the list")
                .containsExactly("main.type_bit 'innodb'");
    }

    @Test
    void anIntermittentDifferenceIsNeitherARegressionNorFixed() {
        MtrResults direct = MtrResults.parse("main.alias   [ pass ]\nmain.bool   [ pass ]\n");
        MtrResults routed = MtrResults.parse("main.alias   [ fail ]\nmain.bool   [ pass ]\n");
        KnownDifference intermittent = new KnownDifference("pool state", true);

        MtrComparison comparison = MtrComparison.of(
                List.of("main.alias", "main.bool"),
                direct,
                routed,
                Map.of("main.alias", intermittent, "main.bool", intermittent));

        assertThat(comparison.regressions()).isEmpty();
        assertThat(comparison.known()).containsExactly("main.alias");
        assertThat(comparison.fixed()).isEmpty();
        assertThat(comparison.passedIntermittent()).containsExactly("main.bool");
    }

    @Test
    void differencesReadTheIntermittentMark() {
        Map<String, KnownDifference> differences = MtrTestList.differences(
                MtrTestList.parse("lock intermittent waits for the session count\nflush waits for a state\n"));
        assertThat(differences)
                .containsEntry("main.lock", new KnownDifference("waits for the session count", true))
                .containsEntry("main.flush", new KnownDifference("waits for a state", false));
        assertThatThrownBy(() -> MtrTestList.differences(MtrTestList.parse("lock intermittent\n")))
                .hasMessageContaining("needs a reason");
    }

    @Test
    void aTestMissingFromTheRoutedRunIsARegression() {
        MtrResults direct = MtrResults.parse("main.alias   [ pass ]\n");
        MtrComparison comparison = MtrComparison.of(List.of("main.alias"), direct, MtrResults.parse(""), Map.of());
        assertThat(comparison.regressions()).containsExactly("main.alias (null)");
    }

    @Test
    void listsReadNamesMarksAndReasons() {
        List<String[]> lines = MtrTestList.parse("# how chosen\nalias ci\nselect   # a comment\n\nsp-vars ci\n");
        assertThat(MtrTestList.subset(lines, false)).containsExactly("main.alias", "main.sp-vars");
        assertThat(MtrTestList.subset(lines, true)).containsExactly("main.alias", "main.select", "main.sp-vars");
        assertThatThrownBy(() -> MtrTestList.subset(MtrTestList.parse("alias nightly\n"), true))
                .hasMessageContaining("expected 'name' or 'name ci'");
    }

    @Test
    void aSelectionNamesTestsOfTheList() {
        List<String[]> lines = MtrTestList.parse("alias ci\nselect\nsp-vars ci\n");
        assertThat(MtrTestList.selected(lines, "ci")).containsExactly("main.alias", "main.sp-vars");
        assertThat(MtrTestList.selected(lines, "all")).containsExactly("main.alias", "main.select", "main.sp-vars");
        assertThat(MtrTestList.selected(lines, "sp-vars, select")).containsExactly("main.sp-vars", "main.select");
        assertThatThrownBy(() -> MtrTestList.selected(lines, "alias,union")).hasMessageContaining("'union' is not in");
    }

    @Test
    void theCheckedInListsParse() {
        assertThat(MtrTestList.subset(true)).isNotEmpty().allMatch(test -> test.startsWith("main."));
        assertThat(MtrTestList.subset(false)).isNotEmpty();
        assertThat(MtrTestList.subset(true)).containsAll(MtrTestList.subset(false));
        assertThat(MtrTestList.subset(true))
                .containsAll(MtrTestList.differences().keySet());
    }
}
