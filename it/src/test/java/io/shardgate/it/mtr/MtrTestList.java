package io.shardgate.it.mtr;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checked-in lists of mtr tests ({@code it/src/test/resources/mtr/}): the subset that passes
 * directly on MariaDB ({@code main-subset.txt}: one test a line, {@code ci} after the name marks the
 * ones CI runs) and the known router differences ({@code router-differences.txt}: test, then why).
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
    public static Map<String, String> differences() {
        Map<String, String> differences = new LinkedHashMap<>();
        for (String[] fields : read(DIFFERENCES)) {
            if (fields.length < 2) {
                throw new IllegalArgumentException(DIFFERENCES + ": '" + fields[0] + "' needs a reason");
            }
            String[] reason = java.util.Arrays.copyOfRange(fields, 1, fields.length);
            differences.put("main." + fields[0], String.join(" ", reason));
        }
        return differences;
    }

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
