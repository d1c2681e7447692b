package io.shardgate.router.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JVM options {@code bin/shardgate run} starts the router with: the launcher's own, then the
 * operator's {@code JAVA_OPTS}. An option of the operator's replaces the launcher's of the same kind
 * rather than being added to it, because some combinations stop the JVM (two collectors; an initial
 * heap above the operator's maximum): any heap size option replaces all of the launcher's, any
 * collector the launcher's collector, and any other option the launcher's of the same name.
 */
public final class JvmOptions {
    private JvmOptions() {}

    /**
     * The serial collector commits and touches only the heap it needs, where the parallel one grows
     * its young generation ahead of use (RSS 254-264 against 183-198 MiB with 100-4,096 clients, the
     * same queries per second: benchmarks/results/memory-2026-11-28-0305-experiments.md, which also tried and
     * dropped Netty's allocator low-memory mode and MALLOC_ARENA_MAX=2: no difference beyond noise).
     */
    static final List<String> FIXED = List.of("-XX:+UseSerialGC");

    private static final Pattern COLLECTOR = Pattern.compile("-XX:[+-]Use\\w*GC");
    private static final Pattern XX = Pattern.compile("-XX:[+-]?(\\w+).*");
    private static final Pattern PROPERTY = Pattern.compile("-D([^=]+)(=.*)?");
    private static final Set<String> HEAP_SIZES = Set.of(
            "MaxHeapSize",
            "InitialHeapSize",
            "MinHeapSize",
            "MaxRAM",
            "MaxRAMPercentage",
            "InitialRAMPercentage",
            "MinRAMPercentage",
            "MaxRAMFraction",
            "MinRAMFraction",
            "InitialRAMFraction");

    /** The launcher's options for {@code budget}, then {@code javaOpts} (whitespace-separated), merged. */
    public static List<String> launch(MemoryBudget budget, String javaOpts) {
        List<String> launcher = new ArrayList<>(FIXED);
        launcher.addAll(budget.jvmOptions());
        List<String> operator = javaOpts == null || javaOpts.isBlank()
                ? List.of()
                : List.of(javaOpts.trim().split("\\s+"));
        List<String> kinds = operator.stream().map(JvmOptions::kind).toList();
        List<String> merged = new ArrayList<>();
        for (String option : launcher) {
            if (!kinds.contains(kind(option))) {
                merged.add(option);
            }
        }
        merged.addAll(operator);
        return merged;
    }

    /** What an option sets: two options of one kind cannot both apply. */
    static String kind(String option) {
        if (option.startsWith("-Xmx") || option.startsWith("-Xms") || option.startsWith("-Xmn")) {
            return "heap size";
        }
        if (COLLECTOR.matcher(option).matches()) {
            return "collector";
        }
        Matcher xx = XX.matcher(option);
        if (xx.matches()) {
            return HEAP_SIZES.contains(xx.group(1)) ? "heap size" : "-XX:" + xx.group(1);
        }
        if (option.startsWith("-Xss")) {
            return "-Xss";
        }
        Matcher property = PROPERTY.matcher(option);
        return property.matches() ? "-D" + property.group(1) : option;
    }
}
