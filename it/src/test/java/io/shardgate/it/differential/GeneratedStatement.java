package io.shardgate.it.differential;

import java.util.List;
import java.util.Set;

/**
 * One generated statement: its class (the shape the generator chose), its SQL with placeholders and
 * their values, how each result column compares ({@link CellMode}; columns past the list compare
 * exactly), whether its ORDER BY is total over the output (rows compare in order, else as
 * multisets), the tables it writes, statements that must run on the same session before it (they
 * are compared too) and session statements that restore the session after it (not compared), and
 * the smaller statements a shrinker may try ({@link SelectSpec}, or none).
 */
record GeneratedStatement(
        String shape,
        Fragment sql,
        List<CellMode> modes,
        boolean ordered,
        Set<String> writes,
        List<GeneratedStatement> before,
        List<String> after,
        SelectSpec spec) {

    static GeneratedStatement read(String shape, Fragment sql, List<CellMode> modes, boolean ordered) {
        return new GeneratedStatement(shape, sql, modes, ordered, Set.of(), List.of(), List.of(), null);
    }

    static GeneratedStatement write(String shape, Fragment sql, String... tables) {
        return new GeneratedStatement(shape, sql, List.of(), false, Set.of(tables), List.of(), List.of(), null);
    }

    boolean isWrite() {
        return !writes.isEmpty() || before.stream().anyMatch(GeneratedStatement::isWrite);
    }

    /** Whether it runs on the session connection (SET and friends before it): never prepared. */
    boolean session() {
        return !before.isEmpty() || !after.isEmpty();
    }

    GeneratedStatement withShape(String newShape) {
        return new GeneratedStatement(newShape, sql, modes, ordered, writes, before, after, spec);
    }

    GeneratedStatement withSession(List<GeneratedStatement> newBefore, List<String> newAfter) {
        return new GeneratedStatement(shape, sql, modes, ordered, writes, newBefore, newAfter, spec);
    }

    String literal() {
        return sql.literal();
    }
}
