package io.shardgate.it.mtr;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checked-in lists of mtr tests ({@code it/src/test/resources/mtr/}): the subset that passes
 * directly on MariaDB ({@code main-subset.txt}: one test a line, {@code ci} after the name marks the
 * ones CI runs) and the known router differences ({@code router-differences.txt}: test, then why;
 * {@code intermittent} before the why marks a test that passes or fails by the router's state when it
 * runs, such as which event loops' pools hold a connection).
 * {@code #} starts a comment.
 */
public final class MtrTestList {
    static final String SUBSET = "mtr/main-subset.txt";
    static final String DIFFERENCES = "mtr/router-differences.txt";

    private MtrTestList() {}

    /** The tests of the subset, as {@code main.name}: all of them, or only those marked {@code ci}. */
    public static List<String> subset(boolean all) {
        return subset(read(SUBSET), all);
    }

    /**
     * The tests {@code -Dmtr.tests} names: {@code ci} (the default), {@code all}, or test names of
     * the list separated by commas ({@code get_diagnostics,sp-vars}) to look at a few closely.
     */
    public static List<String> selected(String property) {
        return selected(read(SUBSET), property);
    }

    static List<String> selected(List<String[]> lines, String property) {
        if (property.equals("ci") || property.equals("all")) {
            return subset(lines, property.equals("all"));
        }
        List<String> all = subset(lines, true);
        List<String> tests = new ArrayList<>();
        for (String name : property.split(",")) {
            String test = "main." + name.trim();
            if (!all.contains(test)) {
                throw new IllegalArgumentException("mtr.tests: '" + name + "' is not in " + SUBSET);
            }
            tests.add(test);
        }
        return tests;
    }

    static List<String> subset(List<String[]> lines, boolean all) {
        List<String> tests = new ArrayList<>();
        for (String[] fields : lines) {
            if (fields.length > 2 || (fields.length == 2 && !fields[1].equals("ci"))) {
                throw new IllegalArgumentException(
                        SUBSET + ": expected 'name' or 'name ci', not '" + String.join(" ", fields) + "'");
            }
            if (all || fields.length == 2) {
                tests.add("main." + fields[0]);
            }
        }
        return tests;
    }

    /** The known router differences: {@code main.name} to the reason. */
    public static Map<String, KnownDifference> differences() {
        return differences(read(DIFFERENCES));
    }

    static Map<String, KnownDifference> differences(List<String[]> lines) {
        Map<String, KnownDifference> differences = new LinkedHashMap<>();
        for (String[] fields : lines) {
            boolean intermittent = fields.length > 1 && fields[1].equals("intermittent");
            int why = intermittent ? 2 : 1;
            if (fields.length <= why) {
                throw new IllegalArgumentException(DIFFERENCES + ": '" + fields[0] + "' needs a reason");
            }
            String reason = String.join(" ", Arrays.copyOfRange(fields, why, fields.length));
            differences.put("main." + fields[0], new KnownDifference(reason, intermittent));
        }
        return differences;
    }

    /**
     * Why a test fails through the router; an {@code intermittent} one may also pass (it is neither a
     * regression when it fails nor fixed when it passes).
     */
    public record KnownDifference(String reason, boolean intermittent) {}

    /** The non-comment lines of a resource, split on whitespace. */
    static List<String[]> read(String resource) {
        try (InputStream in = MtrTestList.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the test classpath");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String[]> parse(String text) {
        List<String[]> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            int hash = line.indexOf('#');
            String content = (hash >= 0 ? line.substring(0, hash) : line).trim();
            if (!content.isEmpty()) {
                lines.add(content.split("\\s+"));
            }
        }
        return lines;
    }
}
