package io.shardgate.it.differential;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts of a run (statements, refusals with their reasons, differences and oracle errors, per
 * statement class) and the reproducer files: the first {@link #FILES_PER_CLASS} differences of each
 * class go to {@code dir} as text, the rest are counted.
 */
final class Tally {
    static final int FILES_PER_CLASS = 5;
    /** The line of a reproducer after which its statements follow as a {@link DifferentialReplay} file. */
    static final String REPLAY = "replay (as text; DifferentialReplay reads the .sql file next to this one):";

    /** One difference found: its class (statement class / kind) and the reproducer text. */
    record Found(String differenceClass, String reproducer) {}

    private final Path dir;
    final Map<String, Integer> statements = new TreeMap<>();
    final Map<String, Integer> oracleErrors = new TreeMap<>();
    final Map<String, Map<String, Integer>> refusals = new TreeMap<>();
    final Map<String, Integer> differences = new TreeMap<>();
    final Map<String, Found> firstOfClass = new TreeMap<>();
    final List<Found> found = new ArrayList<>();
    int total;

    Tally(Path dir) throws IOException {
        this.dir = Files.createDirectories(dir);
    }

    void executed(String shape, boolean prepared) {
        statements.merge(shape + (prepared ? " [prepared]" : ""), 1, Integer::sum);
        total++;
    }

    void oracleError(String shape) {
        oracleErrors.merge(shape, 1, Integer::sum);
    }

    void refused(String shape, String message) {
        String reason = message.replaceFirst("^\\(conn=\\d+\\) ", "")
                .replaceFirst("^This version of Shardgate doesn't yet support '(.*)'$", "$1")
                .replaceAll("\\d+", "#");
        if (reason.length() > 160) {
            reason = reason.substring(0, 160) + "…";
        }
        refusals.computeIfAbsent(shape, k -> new TreeMap<>()).merge(reason, 1, Integer::sum);
    }

    /** Records a difference; true when it is the first of its class (worth shrinking). */
    boolean difference(String differenceClass, String reproducer) throws IOException {
        int n = differences.merge(differenceClass, 1, Integer::sum);
        Found f = new Found(differenceClass, reproducer);
        if (n == 1) {
            firstOfClass.put(differenceClass, f);
        }
        if (n <= FILES_PER_CLASS) {
            found.add(f);
            String file =
                    String.format("%04d-%s.txt", found.size(), differenceClass.replaceAll("[^A-Za-z0-9.-]+", "_"));
            Files.writeString(dir.resolve(file), reproducer, StandardCharsets.UTF_8);
            writeReplay(dir.resolve(file.replaceFirst("\\.txt$", ".sql")), reproducer);
        }
        return n == 1;
    }

    /** Replaces the stored first reproducer of a class with its shrunk form. */
    void shrunk(String differenceClass, String reproducer) throws IOException {
        firstOfClass.put(differenceClass, new Found(differenceClass, reproducer));
        Files.writeString(
                dir.resolve("shrunk-" + differenceClass.replaceAll("[^A-Za-z0-9.-]+", "_") + ".txt"),
                reproducer,
                StandardCharsets.UTF_8);
        writeReplay(dir.resolve("shrunk-" + differenceClass.replaceAll("[^A-Za-z0-9.-]+", "_") + ".sql"), reproducer);
    }

    private static void writeReplay(Path file, String reproducer) throws IOException {
        int at = reproducer.lastIndexOf(REPLAY);
        if (at >= 0) {
            Files.writeString(file, reproducer.substring(at + REPLAY.length() + 1), StandardCharsets.UTF_8);
        }
    }

    String summary(long seed, long millis) {
        StringBuilder out = new StringBuilder();
        int refusedTotal = refusals.values().stream()
                .flatMap(m -> m.values().stream())
                .mapToInt(Integer::intValue)
                .sum();
        int diffTotal =
                differences.values().stream().mapToInt(Integer::intValue).sum();
        out.append(String.format(
                "differential run: seed %d, %d statements in %.1f s, %d refusals (ERROR 1235), %d differences in %d"
                        + " classes%n",
                seed, total, millis / 1000.0, refusedTotal, diffTotal, differences.size()));
        out.append("\nstatements per class:\n");
        statements.forEach((k, v) -> out.append(String.format("  %7d  %s%n", v, k)));
        out.append("\nrefusals per class (reason):\n");
        refusals.forEach(
                (k, m) -> m.forEach((reason, v) -> out.append(String.format("  %7d  %s: %s%n", v, k, reason))));
        out.append("\nstatements MySQL itself fails (and the router too, with the same code unless listed below):\n");
        oracleErrors.forEach((k, v) -> out.append(String.format("  %7d  %s%n", v, k)));
        out.append("\ndifferences per kind:\n");
        Map<String, Integer> kinds = new TreeMap<>();
        differences.forEach((k, v) -> kinds.merge(k.replaceFirst("^.* / ", ""), v, Integer::sum));
        kinds.forEach((k, v) -> out.append(String.format("  %7d  %s%n", v, k)));
        out.append("\ndifferences per class (statement class / kind):\n");
        differences.forEach((k, v) -> out.append(String.format("  %7d  %s%n", v, k)));
        out.append("\nfirst reproducer of each class:\n");
        firstOfClass
                .values()
                .forEach(f -> out.append("\n=== ")
                        .append(f.differenceClass())
                        .append('\n')
                        .append(f.reproducer())
                        .append('\n'));
        return out.toString();
    }

    /** The differences per class, one line each. */
    String differencesPerClass() {
        StringBuilder out = new StringBuilder();
        differences.forEach((k, v) -> out.append(String.format("  %7d  %s%n", v, k)));
        return out.toString();
    }

    void writeSummary(long seed, long millis) throws IOException {
        Files.writeString(dir.resolve("summary.txt"), summary(seed, millis), StandardCharsets.UTF_8);
    }

    Path dir() {
        return dir;
    }
}
