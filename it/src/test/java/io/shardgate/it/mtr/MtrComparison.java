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
 * @param passedIntermittent listed intermittent differences that passed in this run (reported only)
 * @param failedDirectly tests of the run that did not pass directly (reported: the list is stale or
 *     the server differs from the one the list was made with)
 */
public record MtrComparison(
        List<String> regressions,
        List<String> known,
        List<String> fixed,
        List<String> passedIntermittent,
        List<String> failedDirectly) {

    /**
     * Compares {@code routed} with {@code direct} for {@code tests}; {@code differences} names the
     * known router differences.
     */
    public static MtrComparison of(
            List<String> tests,
            MtrResults direct,
            MtrResults routed,
            Map<String, MtrTestList.KnownDifference> differences) {
        List<String> regressions = new ArrayList<>();
        List<String> known = new ArrayList<>();
        List<String> fixed = new ArrayList<>();
        List<String> passedIntermittent = new ArrayList<>();
        List<String> failedDirectly = new ArrayList<>();
        for (String test : tests) {
            if (direct.outcome(test) != Outcome.PASS) {
                failedDirectly.add(test + " (" + direct.outcome(test) + ")");
                continue;
            }
            boolean passes = routed.outcome(test) == Outcome.PASS;
            MtrTestList.KnownDifference difference = differences.get(test);
            if (difference != null) {
                (!passes ? known : difference.intermittent() ? passedIntermittent : fixed).add(test);
            } else if (!passes) {
                regressions.add(test + " (" + routed.outcome(test) + ")");
            }
        }
        return new MtrComparison(
                List.copyOf(regressions),
                List.copyOf(known),
                List.copyOf(fixed),
                List.copyOf(passedIntermittent),
                List.copyOf(failedDirectly));
    }
}
