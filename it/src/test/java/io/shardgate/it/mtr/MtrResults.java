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
 */
public record MtrResults(Map<String, Outcome> outcomes, String completed) {

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

    public MtrResults {
        outcomes = Collections.unmodifiableMap(new LinkedHashMap<>(outcomes));
    }

    /** Reads the runner's standard output; a test reported twice keeps its last outcome. */
    public static MtrResults parse(String output) {
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        String completed = "no 'Completed:' line: the runner stopped before the end";
        for (String line : output.split("\n", -1)) {
            Matcher m = RESULT_LINE.matcher(line);
            if (m.find()) {
                outcomes.put(m.group(1), Outcome.of(m.group(2)));
            } else if (line.startsWith("Completed:")) {
                completed = line.trim();
            }
        }
        return new MtrResults(outcomes, completed);
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
