package io.shardgate.it.mtr;

import io.shardgate.it.mtr.MtrResults.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One run of the mtr subset through the router set against the same tests run directly on MariaDB.
 * Only tests that pass directly count: a test that fails there says nothing about the router.
 *
 * @param regressions tests that pass directly and do not pass through the router, and are not
 *     listed as a known router difference: each fails the IT
 * @param known listed router differences that still fail through the router (reported, not failing)
 * @param fixed listed router differences that pass through the router in this run (one that passes
 *     with multiplexing on and off must leave the list)
 * @param failedDirectly tests of the run that did not pass directly (reported: the list is stale or
 *     the server differs from the one the list was made with)
 */
public record MtrComparison(
        List<String> regressions, List<String> known, List<String> fixed, List<String> failedDirectly) {

    /**
     * Compares {@code routed} with {@code direct} for {@code tests}; {@code differences} names the
     * known router differences (test to reason).
     */
    public static MtrComparison of(
            List<String> tests, MtrResults direct, MtrResults routed, Map<String, String> differences) {
        List<String> regressions = new ArrayList<>();
        List<String> known = new ArrayList<>();
        List<String> fixed = new ArrayList<>();
        List<String> failedDirectly = new ArrayList<>();
        for (String test : tests) {
            if (direct.outcome(test) != Outcome.PASS) {
                failedDirectly.add(test + " (" + direct.outcome(test) + ")");
                continue;
            }
            boolean passes = routed.outcome(test) == Outcome.PASS;
            if (differences.containsKey(test)) {
                (passes ? fixed : known).add(test);
            } else if (!passes) {
                regressions.add(test + " (" + routed.outcome(test) + ")");
            }
        }
        return new MtrComparison(
                List.copyOf(regressions), List.copyOf(known), List.copyOf(fixed), List.copyOf(failedDirectly));
    }
}
