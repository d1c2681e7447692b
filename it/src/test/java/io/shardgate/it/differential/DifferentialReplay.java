package io.shardgate.it.differential;

import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replays hand-picked statements (a reproducer's state writes and statement, say) on the cluster of
 * {@link DifferentialIT} and prints both answers: one statement per line of the file named by
 * {@code -Ddifferential.replay=FILE}; {@code --} starts a comment, a line {@code -- reset} puts the
 * initial rows back; {@code -- latin1} / {@code -- mariadb} / {@code -- mysql} switch the client
 * for the following lines. After every statement the tables are checked as after a write. Skipped
 * without the property:
 *
 * <pre>
 * ./mvnw -o -pl it -am verify -Dit.test=DifferentialReplay -Ddifferential.replay=/tmp/repro.sql \
 *     -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
class DifferentialReplay {
    @TempDir
    static Path dataDir;

    @Test
    void replaysStatementsOnRouterAndOracle() throws Exception {
        String file = System.getProperty("differential.replay");
        assumeThat(file).as("-Ddifferential.replay=FILE").isNotNull();
        List<String> lines = Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder();
        try (DifferentialCluster cluster = new DifferentialCluster(dataDir)) {
            Tally tally = new Tally(Path.of(System.getProperty("differential.dir", "target/differential"), "replay"));
            try (DifferentialRun run = new DifferentialRun(cluster, 0, tally)) {
                run.load();
            }
            var rows = DifferentialSchema.rows();
            TableCheck tables = new TableCheck(cluster);
            int driver = 0;
            Connection r = cluster.viaRouter(driver, false);
            Connection o = cluster.toOracle(driver, false);
            try {
                for (String line : lines) {
                    String sql = line.strip();
                    if (sql.isEmpty()) {
                        continue;
                    }
                    if (sql.startsWith("--")) {
                        String directive = sql.substring(2).strip();
                        int next = switch (directive) {
                            case "latin1" -> 2;
                            case "mariadb" -> 1;
                            case "mysql" -> 0;
                            default -> driver;
                        };
                        if (directive.equals("reset")) {
                            cluster.reset(rows);
                            out.append("-- reset\n");
                        } else if (next != driver) {
                            driver = next;
                            r.close();
                            o.close();
                            r = cluster.viaRouter(driver, false);
                            o = cluster.toOracle(driver, false);
                            out.append("-- client ").append(directive).append('\n');
                        }
                        continue;
                    }
                    if (sql.endsWith(";")) {
                        sql = sql.substring(0, sql.length() - 1);
                    }
                    GeneratedStatement st = new GeneratedStatement(
                            "replay", Fragment.of(sql), List.of(), false, Set.of(), List.of(), List.of(), null);
                    Answer want = Answer.run(o, st, false, true);
                    Answer got = Answer.run(r, st, false, true);
                    boolean inOrder = got.equals(want);
                    List<List<String>> a = new ArrayList<>(got.rows());
                    List<List<String>> b = new ArrayList<>(want.rows());
                    a.sort(java.util.Comparator.comparing(Object::toString));
                    b.sort(java.util.Comparator.comparing(Object::toString));
                    out.append("statement: ").append(sql).append('\n');
                    out.append("  router: ").append(got).append('\n');
                    out.append("  oracle: ").append(want).append('\n');
                    out.append("  same in order: ")
                            .append(inOrder)
                            .append(", same as multisets: ")
                            .append(a.equals(b)
                                    && got.columns().equals(want.columns())
                                    && got.error() == null == (want.error() == null))
                            .append('\n');
                    for (DifferentialSchema.Table t : DifferentialSchema.TABLES) {
                        for (AnswerComparison.Difference d : tables.check(t)) {
                            out.append("  after it: ")
                                    .append(d.kind())
                                    .append(": ")
                                    .append(d.detail())
                                    .append('\n');
                        }
                    }
                    if (got.lost()) {
                        r = cluster.viaRouter(driver, false);
                    }
                }
            } finally {
                r.close();
                o.close();
            }
        }
        System.out.println("REPLAY\n" + out);
        Files.writeString(Path.of(file + ".out"), out.toString(), StandardCharsets.UTF_8);
    }
}
