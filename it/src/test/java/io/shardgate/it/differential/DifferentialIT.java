package io.shardgate.it.differential;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generative differential tester of issue 18: Shardgate in-process over three MariaDB shards
 * and one unsharded MariaDB (the oracle) holding the same rows, over a schema with every sharding
 * strategy (hash on BIGINT, hash on a utf8mb4_general_ci VARCHAR, range, a binding group, broadcast,
 * unlisted) and rows full of traps ({@link DifferentialSchema}); statements drawn from a seeded
 * grammar ({@link StatementGenerator}: reads, joins, aggregates, windows, unions, subqueries,
 * session-dependent statements, writes of every kind, a quarter as server-side prepared statements)
 * run on both and are compared ({@link AnswerComparison}, {@link TableCheck}). A router ERROR 1235
 * is a refusal (counted per class); every other difference fails the test, listed by class, with a
 * reproducer per difference under {@code target/differential/seed-N/} ({@link Tally}).
 *
 * <p>Runs in every {@code verify} with a fixed seed; alone:
 *
 * <pre>
 * ./mvnw -o -pl it -am verify -Dit.test=DifferentialIT -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * Long mode: {@code -Ddifferential.statements=1000000 -Ddifferential.seed=N} (hours; a summary is
 * rewritten every 5000 statements; {@code -Ddifferential.minutes=M} ends it after M minutes instead,
 * and {@code -Djunit.jupiter.execution.timeout.default=24h} lifts the project's 5-minute test
 * timeout). See {@code README.md} next to this class.
 */
class DifferentialIT {
    private static final long DEFAULT_SEED = 18L;
    private static final long DEFAULT_STATEMENTS = 3000;

    @TempDir
    static Path dataDir;

    @Test
    void everyStatementAnswersAsOneUnshardedServerWould() throws Exception {
        long seed = Long.getLong("differential.seed", DEFAULT_SEED);
        long statements = Long.getLong("differential.statements", DEFAULT_STATEMENTS);
        long minutes = Long.getLong("differential.minutes", 0);
        Path out = Path.of(System.getProperty("differential.dir", "target/differential"), "seed-" + seed);
        Tally tally = new Tally(out);
        long started = System.currentTimeMillis();
        try (DifferentialCluster cluster = new DifferentialCluster(dataDir);
                DifferentialRun run = new DifferentialRun(cluster, seed, tally)) {
            run.load();
            run.run(statements, minutes);
        }
        String summary = tally.summary(seed, System.currentTimeMillis() - started);
        tally.writeSummary(seed, System.currentTimeMillis() - started);
        System.out.println(summary);
        assertThat(tally.differences)
                .as(
                        "differences between the router and the oracle (reproducers in %s):%n%s",
                        out.toAbsolutePath(), summary)
                .isEmpty();
    }
}
