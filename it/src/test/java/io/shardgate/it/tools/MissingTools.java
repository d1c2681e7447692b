package io.shardgate.it.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Tools that tests found missing, collected over the build's test JVMs (surefire's and failsafe's,
 * both run in the {@code it} module) in {@code target/missing-tools.txt}, one line per test class
 * that skipped, and summed up in one line at the end of the build: the {@code exec} executions in
 * {@code it/pom.xml} call {@link #main} with {@code reset} before the tests and {@code summary} after
 * them.
 */
public final class MissingTools {
    static final Path RECORD = Path.of("target", "missing-tools.txt");

    /** One skip: which tool, and which test class asked for it. */
    record Skip(ExternalTool tool, String testClass) {
        String line() {
            return tool.name() + "\t" + testClass;
        }

        static Skip parse(String line) {
            String[] fields = line.split("\t", 2);
            return new Skip(ExternalTool.valueOf(fields[0]), fields.length > 1 ? fields[1] : "?");
        }
    }

    private MissingTools() {}

    /** Records {@code tool} as missing and ends the calling test: skipped, or failed under CI. */
    static Path missing(ExternalTool tool) {
        String caller = StackWalker.getInstance()
                .walk(frames -> frames.map(StackWalker.StackFrame::getClassName)
                        .filter(name -> !name.startsWith(MissingTools.class.getPackageName() + "."))
                        .findFirst()
                        .orElse("?"));
        String simple = caller.substring(caller.lastIndexOf('.') + 1);
        record(new Skip(tool, simple.contains("$") ? simple.substring(0, simple.indexOf('$')) : simple));
        String message = tool.displayName() + " is not installed (" + tool.install() + "; bash .ci/run installs it)";
        if (underCi()) {
            return Assertions.fail("CI=true and " + message);
        }
        Assumptions.abort(message);
        throw new AssertionError("unreachable: abort throws");
    }

    /** CI sets {@code CI=true} ({@code .ci/run} is run that way): there a missing tool is a failure. */
    static boolean underCi() {
        String ci = System.getenv("CI");
        return ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false") && !ci.equals("0");
    }

    private static synchronized void record(Skip skip) {
        try {
            Files.createDirectories(RECORD.toAbsolutePath().getParent());
            Files.writeString(
                    RECORD,
                    skip.line() + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The build's one summary line for {@code skips}, or none when nothing was missing: the tools,
     * the test classes they held back, and one command that installs them.
     */
    static List<String> summary(List<Skip> skips) {
        if (skips.isEmpty()) {
            return List.of();
        }
        Map<String, Set<String>> classesByTool = new TreeMap<>();
        Set<String> aptPackages = new TreeSet<>();
        Set<String> otherHints = new LinkedHashSet<>();
        for (Skip skip : skips) {
            classesByTool
                    .computeIfAbsent(skip.tool().displayName(), t -> new TreeSet<>())
                    .add(skip.testClass());
            String install = skip.tool().install();
            if (install.startsWith("apt-get install ") && !install.contains("(")) {
                aptPackages.addAll(
                        List.of(install.substring("apt-get install ".length()).split(" ")));
            } else {
                otherHints.add(install);
            }
        }
        List<String> tools = new ArrayList<>();
        classesByTool.forEach((tool, classes) -> tools.add(tool + " (" + String.join(", ", classes) + ")"));
        List<String> installs = new ArrayList<>();
        if (!aptPackages.isEmpty()) {
            installs.add("apt-get install " + String.join(" ", aptPackages));
        }
        installs.addAll(otherHints);
        return List.of("Tests skipped for missing tools: " + String.join("; ", tools)
                + ". Install them with: " + String.join("; ", installs)
                + " — or run `bash .ci/run` as root, which installs them all and runs the build.");
    }

    /** {@code reset}: forget earlier builds' records; {@code summary}: print the summary line. */
    public static void main(String[] args) throws IOException {
        Path record = args.length > 1 ? Path.of(args[1]) : RECORD;
        switch (args.length > 0 ? args[0] : "") {
            case "reset" -> Files.deleteIfExists(record);
            case "summary" -> {
                List<Skip> skips = Files.isRegularFile(record)
                        ? Files.readAllLines(record).stream()
                                .filter(line -> !line.isBlank())
                                .map(Skip::parse)
                                .toList()
                        : List.of();
                summary(skips).forEach(line -> System.out.println("[WARNING] " + line));
            }
            default -> throw new IllegalArgumentException("usage: MissingTools reset|summary [record file]");
        }
    }
}
