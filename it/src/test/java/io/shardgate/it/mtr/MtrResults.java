package io.shardgate.it.mtr;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one {@code mysql-test-run} reported: each test's outcome, in the order it ran, and the
 * runner's own closing line ({@code Completed: Failed 2/40 tests, 95.00% were successful.}).
 *
 * @param outcomes test name ({@code main.alias}) to its outcome
 * @param completed the runner's {@code Completed:} line, or a note that it printed none (it stopped early)
 * @param failures each failed test's report as the runner printed it after its result line: the
 *     diff of its {@code .result} and {@code .reject}, or the error that stopped it
 */
public record MtrResults(Map<String, Outcome> outcomes, String completed, Map<String, String> failures) {

    /** A test's result as the runner prints it in brackets. */
    public enum Outcome {
        PASS,
        FAIL,
        SKIPPED,
        DISABLED;

        static Outcome of(String bracket) {
            return switch (bracket) {
                case "pass", "retry-pass" -> PASS;
                case "fail", "retry-fail" -> FAIL;
                case "skipped" -> SKIPPED;
                case "disabled" -> DISABLED;
                default -> throw new IllegalArgumentException("unknown mtr outcome [ " + bracket + " ]");
            };
        }
    }

    /** {@code main.alias   [ pass ]   35}: a test name (with its combination, if any), then the outcome. */
    private static final Pattern RESULT_LINE =
            Pattern.compile("^(?:worker\\[\\d+\\] )?(\\w+\\.[\\w-]+(?: '[^']*')?)\\s+\\[ ([a-z-]+) \\]");

    /** The runner's rule under a failed test's report (a diff's own lines start with "--- " or "-"). */
    private static final Pattern RULE = Pattern.compile("^-{20,}\\s*$");

    public MtrResults {
        outcomes = Collections.unmodifiableMap(new LinkedHashMap<>(outcomes));
        failures = Collections.unmodifiableMap(new LinkedHashMap<>(failures));
    }

    /**
     * Reads the runner's standard output; a test reported twice keeps its last outcome. A failed
     * test's report is the lines after its result line, up to the runner's next result line, rule
     * or closing line.
     */
    public static MtrResults parse(String output) {
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        Map<String, String> failures = new LinkedHashMap<>();
        String completed = "no 'Completed:' line: the runner stopped before the end";
        String failing = null;
        StringBuilder report = new StringBuilder();
        for (String line : output.split("\n", -1)) {
            Matcher m = RESULT_LINE.matcher(line);
            boolean result = m.find();
            if (failing != null && (result || RULE.matcher(line).matches() || line.startsWith("Completed:"))) {
                failures.put(failing, report.toString().strip());
                failing = null;
            }
            if (result) {
                Outcome outcome = Outcome.of(m.group(2));
                outcomes.put(m.group(1), outcome);
                if (outcome == Outcome.FAIL) {
                    failing = m.group(1);
                    report.setLength(0);
                    report.append(line.strip()).append('\n');
                }
            } else if (line.startsWith("Completed:")) {
                completed = line.trim();
            } else if (failing != null) {
                report.append(line).append('\n');
            }
        }
        if (failing != null) {
            failures.put(failing, report.toString().strip());
        }
        return new MtrResults(outcomes, completed, failures);
    }

    /** The runner's report of a failed {@code test}, or a note that it printed none. */
    public String failure(String test) {
        return failures.getOrDefault(test, "(the runner printed no report for " + test + ")");
    }

    /** The outcome of {@code test}, or null when the run did not report it. */
    public Outcome outcome(String test) {
        return outcomes.get(test);
    }

    /** The tests with {@code outcome}, in run order. */
    public List<String> with(Outcome outcome) {
        return outcomes.entrySet().stream()
                .filter(e -> e.getValue() == outcome)
                .map(Map.Entry::getKey)
                .toList();
    }

    /** One line: counts per outcome and the runner's closing line. */
    public String summary() {
        return with(Outcome.PASS).size() + " passed, " + with(Outcome.FAIL).size() + " failed, "
                + with(Outcome.SKIPPED).size() + " skipped, "
                + with(Outcome.DISABLED).size() + " disabled ("
                + completed + ")";
    }
}
