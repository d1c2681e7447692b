package io.shardgate.router.memory;

import static io.shardgate.router.memory.MemoryBudget.MIB;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The launcher's JVM options and the operator's JAVA_OPTS: the operator's win, kind by kind. */
class JvmOptionsTest {
    private static final MemoryBudget BUDGET = new MemoryBudget(64 * MIB, 300 * MIB, 90 * MIB);

    private static List<String> launcherOnly() {
        List<String> all = new ArrayList<>(JvmOptions.FIXED);
        all.addAll(BUDGET.jvmOptions());
        return all;
    }

    @Test
    void withoutJavaOptsTheLauncherSizesEverything() {
        assertThat(JvmOptions.launch(BUDGET, null)).isEqualTo(launcherOnly());
        assertThat(JvmOptions.launch(BUDGET, "  ")).isEqualTo(launcherOnly());
        assertThat(launcherOnly()).contains("-Xms64m", "-Xmx300m", "-XX:MaxDirectMemorySize=90m", "-XX:+UseSerialGC");
    }

    @Test
    void anyHeapSizeOfTheOperatorsReplacesBothOfTheLaunchers() {
        // -Xms64m beside an operator's -Xmx32m would stop the JVM
        assertThat(JvmOptions.launch(BUDGET, "-Xmx32m"))
                .doesNotContain("-Xms64m", "-Xmx300m")
                .endsWith("-Xmx32m")
                .contains("-XX:MaxDirectMemorySize=90m");
        assertThat(JvmOptions.launch(BUDGET, "-XX:MaxRAMPercentage=75")).doesNotContain("-Xms64m", "-Xmx300m");
        assertThat(JvmOptions.launch(BUDGET, "-XX:InitialHeapSize=1g")).doesNotContain("-Xms64m", "-Xmx300m");
    }

    @Test
    void anotherCollectorReplacesTheLaunchers() {
        // two collectors stop the JVM: the image's and Compose's old JAVA_OPTS named the parallel one
        List<String> options = JvmOptions.launch(BUDGET, "-XX:+UseParallelGC -Xms256m");
        assertThat(options).doesNotContain("-XX:+UseSerialGC", "-Xms64m", "-Xmx300m");
        assertThat(options).endsWith("-XX:+UseParallelGC", "-Xms256m");
    }

    @Test
    void otherOptionsReplaceTheLaunchersOfTheSameName() {
        assertThat(JvmOptions.launch(BUDGET, "-XX:MaxDirectMemorySize=1g"))
                .doesNotContain("-XX:MaxDirectMemorySize=90m")
                .contains("-Xmx300m", "-XX:+UseSerialGC");
        assertThat(JvmOptions.launch(BUDGET, "-Dshardgate.transport=nio -XX:+HeapDumpOnOutOfMemoryError"))
                .startsWith(launcherOnly().toArray(String[]::new))
                .endsWith("-Dshardgate.transport=nio", "-XX:+HeapDumpOnOutOfMemoryError");
    }

    @Test
    void kindsNameWhatAnOptionSets() {
        assertThat(JvmOptions.kind("-Xmx1g")).isEqualTo(JvmOptions.kind("-XX:MaxHeapSize=1073741824"));
        assertThat(JvmOptions.kind("-XX:+UseG1GC")).isEqualTo(JvmOptions.kind("-XX:+UseSerialGC"));
        assertThat(JvmOptions.kind("-XX:-UseCompressedOops")).isEqualTo(JvmOptions.kind("-XX:+UseCompressedOops"));
        assertThat(JvmOptions.kind("-Da.b=1"))
                .isEqualTo(JvmOptions.kind("-Da.b=2"))
                .isNotEqualTo("-Da.c");
        assertThat(JvmOptions.kind("-Xss256k")).isEqualTo(JvmOptions.kind("-Xss1m"));
    }
}
