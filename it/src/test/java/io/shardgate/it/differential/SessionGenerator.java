package io.shardgate.it.differential;

import java.util.List;

/**
 * Statements whose answer depends on the session: session variables that change results
 * (sql_select_limit, div_precision_increment, group_concat_max_len, time_zone), FOUND_ROWS() after
 * SQL_CALC_FOUND_ROWS or a LIMIT, ROW_COUNT() after a write, user variables, DATABASE(). Each runs on
 * one session: the statements before it are compared too, the ones after restore the session.
 */
final class SessionGenerator {
    private final Clauses g;
    private final ReadGenerator reads;
    private final WriteGenerator writes;

    SessionGenerator(Clauses g, ReadGenerator reads, WriteGenerator writes) {
        this.g = g;
        this.reads = reads;
        this.writes = writes;
    }

    private static GeneratedStatement set(String sql) {
        return GeneratedStatement.read("session.set", Fragment.of(sql), List.of(), false);
    }

    GeneratedStatement next() {
        switch (g.between(0, 9)) {
            case 0 -> {
                GeneratedStatement q = reads.plain("read.session.sql_select_limit", g.chance(50), false, true);
                return q.withShape("read.session.sql_select_limit")
                        .withSession(
                                List.of(set("SET SESSION sql_select_limit = " + g.between(0, 4))),
                                List.of("SET SESSION sql_select_limit = DEFAULT"));
            }
            case 1 -> {
                GeneratedStatement q = reads.aggregate(g.chance(50) ? 0 : 1);
                return q.withShape("read.session.div_precision_increment")
                        .withSession(
                                List.of(set("SET SESSION div_precision_increment = " + g.between(0, 12))),
                                List.of("SET SESSION div_precision_increment = DEFAULT"));
            }
            case 2 -> {
                String t = g.pick(new String[] {"hi", "rg", "hs"});
                String pk = t.equals("hs") ? "k" : "id";
                GeneratedStatement q = GeneratedStatement.read(
                        "read.session.group_concat_max_len",
                        Fragment.of("SELECT GROUP_CONCAT(" + pk + " ORDER BY " + pk + ") FROM " + t),
                        List.of(),
                        false);
                return q.withSession(
                        List.of(set("SET SESSION group_concat_max_len = " + g.between(4, 40))),
                        List.of("SET SESSION group_concat_max_len = DEFAULT"));
            }
            case 3 -> {
                GeneratedStatement first = reads.plain("read.session.calc", g.chance(30), true);
                String calc = first.sql().text().replaceFirst("^SELECT ", "SELECT SQL_CALC_FOUND_ROWS ");
                GeneratedStatement before = new GeneratedStatement(
                        "read.session.sql_calc_found_rows",
                        new Fragment(calc, first.sql().params()),
                        first.modes(),
                        first.ordered(),
                        java.util.Set.of(),
                        List.of(),
                        List.of(),
                        null);
                return GeneratedStatement.read(
                                "read.session.found_rows.calc", Fragment.of("SELECT FOUND_ROWS()"), List.of(), false)
                        .withSession(List.of(before), List.of());
            }
            case 4 -> {
                GeneratedStatement first = reads.plain("read.session.limit", g.chance(30), true);
                return GeneratedStatement.read(
                                "read.session.found_rows", Fragment.of("SELECT FOUND_ROWS()"), List.of(), false)
                        .withSession(List.of(first), List.of());
            }
            case 5 -> {
                GeneratedStatement write = g.chance(50) ? writes.updateOrDelete(g.chance(50)) : writes.insert();
                return GeneratedStatement.read(
                                "read.session.row_count", Fragment.of("SELECT ROW_COUNT()"), List.of(), false)
                        .withSession(List.of(write), List.of());
            }
            case 6 -> {
                String t = g.pick(new String[] {"hi", "rg"});
                GeneratedStatement q = GeneratedStatement.read(
                        "read.session.time_zone",
                        Fragment.of("SELECT id, UNIX_TIMESTAMP(dt) FROM " + t + " WHERE dt IS NOT NULL"),
                        List.of(),
                        false);
                return q.withSession(
                        List.of(set("SET time_zone = '" + g.pick(new String[] {"+05:00", "-08:00", "+00:00"}) + "'")),
                        List.of("SET time_zone = DEFAULT"));
            }
            case 8 -> {
                String t = g.pick(new String[] {"hi", "rg", "hs", "br"});
                GeneratedStatement set = GeneratedStatement.read(
                        "session.set-scalar-subquery",
                        Fragment.of("SET @c = (SELECT COUNT(*) FROM " + t + ")"),
                        List.of(),
                        false);
                return GeneratedStatement.read(
                                "read.session.set-scalar-subquery", Fragment.of("SELECT @c"), List.of(), false)
                        .withSession(List.of(set), List.of());
            }
            case 9 -> {
                String t = g.pick(new String[] {"hi", "rg", "hs"});
                String key = t.equals("hs") ? "k" : "id";
                GeneratedStatement create = GeneratedStatement.read(
                        "write.create-table-as-select",
                        Fragment.of(
                                "CREATE TABLE ctas AS SELECT " + key + " AS k, grp FROM " + t + " WHERE grp > ?",
                                (long) g.between(-1, 3)),
                        List.of(),
                        false);
                return GeneratedStatement.read(
                                "read.create-table-as-select",
                                Fragment.of("SELECT COUNT(*), SUM(grp) FROM ctas"),
                                List.of(),
                                false)
                        .withSession(List.of(create), List.of("DROP TABLE IF EXISTS ctas"));
            }
            default -> {
                GeneratedStatement q = GeneratedStatement.read(
                        "read.session.user-variable",
                        Fragment.of("SELECT id, grp, DATABASE() FROM hi WHERE id = @v"),
                        List.of(),
                        false);
                return q.withSession(
                        List.of(set("SET @v = " + Literal.sql(g.keyValue(DifferentialSchema.HI)))), List.of());
            }
        }
    }
}
