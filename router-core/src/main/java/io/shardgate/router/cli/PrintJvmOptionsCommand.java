package io.shardgate.router.cli;

import io.shardgate.router.config.ConfigException;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.memory.JvmOptions;
import io.shardgate.router.memory.MemoryBudget;
import io.shardgate.router.memory.MemoryDemand;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * {@code shardgate print-jvm-options --config FILE}: the JVM options {@code bin/shardgate run} starts
 * the router with, on one line: heap and direct memory sized from the file ({@link MemoryBudget}),
 * the heap's bound replaced by {@code SHARDGATE_HEAP} when set, then {@code JAVA_OPTS} ({@link
 * JvmOptions}). Exit code 2 for a file the router would refuse or a bad {@code SHARDGATE_HEAP}.
 */
@Command(
        name = "print-jvm-options",
        // no --help of its own: the launcher passes it `run`'s options, whose --help is run's
        description = "Print the JVM options `bin/shardgate run` uses: heap and direct memory sized from the"
                + " configuration (SHARDGATE_HEAP replaces the heap's bound), then JAVA_OPTS.")
public final class PrintJvmOptionsCommand implements Callable<Integer> {
    private static final Pattern SIZE = Pattern.compile("(\\d+)([kmg]?)");

    @Mixin
    RouterConfigFile file;

    @Option(
            names = "--launcher",
            hidden = true,
            description = "as bin/shardgate asks: a bad file prints nothing (run reports it), a bad"
                    + " SHARDGATE_HEAP exits 3")
    boolean launcher;

    /** The rest of {@code run}'s options (the launcher passes them all): the sizes do not depend on them. */
    @Unmatched
    List<String> runOptions;

    @Override
    public Integer call() {
        RouterConfig parsed;
        try {
            parsed = file.load();
        } catch (ConfigException e) {
            if (!launcher) {
                System.err.println("shardgate: " + e.getMessage());
            }
            return 2;
        }
        long heap;
        try {
            heap = heapBytes(System.getenv("SHARDGATE_HEAP"));
        } catch (IllegalArgumentException e) {
            System.err.println("shardgate: " + e.getMessage());
            return launcher ? 3 : 2;
        }
        MemoryBudget budget = MemoryBudget.of(MemoryDemand.of(parsed), heap);
        System.out.println(String.join(" ", JvmOptions.launch(budget, System.getenv("JAVA_OPTS"))));
        return 0;
    }

    /** {@code SHARDGATE_HEAP} in bytes ({@code 512m}, {@code 2g}, as {@code -Xmx} takes it); 0 when unset. */
    static long heapBytes(String value) {
        if (value == null || value.isBlank()) {
            return 0;
        }
        Matcher m = SIZE.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "SHARDGATE_HEAP must be a size like 512m or 2g (as -Xmx takes it), was '" + value + "'");
        }
        int shift = switch (m.group(2)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
        };
        long size = Long.parseLong(m.group(1)) << shift;
        if (size < (16L << 20)) {
            throw new IllegalArgumentException("SHARDGATE_HEAP must be at least 16m, was '" + value + "'");
        }
        return size;
    }
}
