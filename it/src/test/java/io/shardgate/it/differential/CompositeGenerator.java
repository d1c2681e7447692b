package io.shardgate.it.differential;

import static io.shardgate.it.differential.DifferentialSchema.BR;
import static io.shardgate.it.differential.DifferentialSchema.HC;
import static io.shardgate.it.differential.DifferentialSchema.HI;
import static io.shardgate.it.differential.DifferentialSchema.HS;
import static io.shardgate.it.differential.DifferentialSchema.RG;
import static io.shardgate.it.differential.DifferentialSchema.UN;

import io.shardgate.it.differential.DifferentialSchema.Table;
import java.util.ArrayList;
import java.util.List;

/**
 * SELECTs over several tables or several SELECTs: joins inside the binding group, with the broadcast
 * table (inner and outer, either side preserved), across shards; derived tables; UNION and UNION
 * ALL; scalar, IN and EXISTS subqueries.
 */
final class CompositeGenerator {
    private final Clauses g;

    CompositeGenerator(Clauses g) {
        this.g = g;
    }

    /** Two tables joined; {@code kind}: 0 binding group, 1 broadcast, 2 outer, 3 outside any binding group. */
    GeneratedStatement join(int kind) {
        Table left;
        Table right;
        String on;
        String type = "JOIN";
        String shape;
        switch (kind) {
            case 0 -> {
                left = HI;
                right = HC;
                on = "c.pid = h.id";
                shape = "read.join.binding";
            }
            case 1 -> {
                left = g.pick(List.of(HI, HC, HS, RG));
                right = BR;
                on = "b.grp = " + a(left) + ".grp";
                if (left == HC) {
                    on = "b.grp = c.qty";
                }
                shape = "read.join.broadcast";
            }
            case 2 -> {
                int k = g.between(0, 5);
                if (k < 2) {
                    left = k == 0 ? HI : HC;
                    right = k == 0 ? HC : HI;
                    on = "c.pid = h.id";
                    type = "LEFT JOIN";
                    shape = "read.join.outer.binding";
                } else if (k < 4) {
                    left = g.pick(List.of(HI, RG, HS));
                    right = BR;
                    on = "b.grp = " + a(left) + ".grp";
                    type = k == 2 ? "LEFT JOIN" : "RIGHT JOIN";
                    shape = k == 2 ? "read.join.outer.sharded-preserved" : "read.join.outer.broadcast-preserved";
                } else {
                    left = BR;
                    right = g.pick(List.of(HI, RG, HS));
                    on = "b.grp = " + a(right) + ".grp";
                    type = "LEFT JOIN";
                    shape = "read.join.outer.broadcast-preserved";
                }
            }
            default -> {
                left = g.pick(List.of(HI, UN, RG));
                right = left == HI ? g.pick(List.of(HS, RG, UN)) : HI;
                on = a(left) + ".grp = " + a(right) + ".grp";
                shape = "read.join.cross-shard";
            }
        }
        String la = a(left);
        String ra = a(right);
        List<SelectSpec.Item> items = new ArrayList<>();
        List<Fragment> groupBy = new ArrayList<>();
        List<Fragment> orderBy = new ArrayList<>();
        boolean grouped = g.chance(25);
        if (grouped) {
            DifferentialSchema.Column k = g.pick(left.columns());
            items.add(new SelectSpec.Item(Fragment.of(la + "." + k.name()), Clauses.grouped(k)));
            groupBy.add(Fragment.of(la + "." + k.name()));
            items.add(g.knownAggregate(right, ra));
            if (g.chance(50)) {
                items.add(g.knownAggregate(left, la));
            }
            shape += ".group-by";
        } else {
            int n = g.between(1, 3);
            for (int i = 0; i < n; i++) {
                Table t = g.chance(50) ? left : right;
                items.add(g.rowExpression(t, a(t)));
            }
        }
        boolean total = false;
        Fragment limit = null;
        if (g.chance(50)) {
            if (grouped) {
                orderBy.addAll(groupBy);
            } else {
                for (Table t : List.of(left, right)) {
                    for (String pk : t.pk()) {
                        orderBy.add(Fragment.of(a(t) + "." + pk + (g.chance(30) ? " DESC" : "")));
                    }
                }
            }
            total = true;
            if (g.chance(40)) {
                limit = g.limit();
                shape += ".limit";
            }
        }
        List<Fragment> where = new ArrayList<>();
        if (g.chance(40)) {
            where.add(g.predicate(left, la, g.chance(50)));
        }
        if (g.chance(30)) {
            where.add(g.predicate(right, ra, false));
        }
        return new SelectSpec(
                        shape,
                        false,
                        items,
                        Fragment.of(left.name() + " " + la + " " + type + " " + right.name() + " " + ra + " ON " + on),
                        where,
                        groupBy,
                        null,
                        orderBy,
                        total,
                        limit,
                        limit != null,
                        "")
                .render();
    }

    private static String a(Table t) {
        return t == HI ? "h" : t == HC ? "c" : t == HS ? "s" : t == RG ? "r" : t == BR ? "b" : "u";
    }

    /** A SELECT over a derived table: filtered, grouped, limited or windowed inside. */
    GeneratedStatement derived() {
        Table t = g.pick(List.of(HI, HS, RG));
        String pk = t.orderByPk();
        String key = t.key();
        Fragment inner;
        List<SelectSpec.Item> items;
        List<Fragment> outerWhere = new ArrayList<>();
        List<Fragment> groupBy = List.of();
        String shape;
        switch (g.between(0, 4)) {
            case 0 -> {
                inner = Fragment.of("SELECT " + key + " AS k, grp, s FROM " + t.name() + " WHERE ")
                        .plus(g.predicate(t, null, g.chance(50)));
                items = List.of(
                        new SelectSpec.Item(Fragment.of("x.grp"), CellMode.EXACT),
                        new SelectSpec.Item(Fragment.of("COUNT(*)"), CellMode.EXACT),
                        new SelectSpec.Item(Fragment.of("MAX(x.s)"), CellMode.collated(DifferentialSchema.GCI)));
                groupBy = List.of(Fragment.of("x.grp"));
                shape = "read.derived.grouped-outside";
            }
            case 1 -> {
                inner = Fragment.of("SELECT grp, COUNT(*) AS c, SUM(d) AS sd FROM " + t.name() + " GROUP BY grp");
                items = List.of(
                        new SelectSpec.Item(Fragment.of("x.grp"), CellMode.EXACT),
                        new SelectSpec.Item(Fragment.of("x.c"), CellMode.EXACT),
                        new SelectSpec.Item(Fragment.of("x.sd"), CellMode.EXACT));
                outerWhere.add(Fragment.of("x.c > ?", (long) g.between(0, 4)));
                shape = "read.derived.grouped-inside";
            }
            case 2 -> {
                inner = Fragment.of(
                        "SELECT " + key + " AS k, grp FROM " + t.name() + " ORDER BY " + pk + " LIMIT ?",
                        (long) g.between(1, 8));
                items = List.of(
                        new SelectSpec.Item(Fragment.of("x.k"), CellMode.EXACT),
                        new SelectSpec.Item(Fragment.of("x.grp"), CellMode.EXACT));
                shape = "read.derived.limit-inside";
            }
            case 3 -> {
                inner = Fragment.of(
                        "SELECT " + key + " AS k, ROW_NUMBER() OVER (ORDER BY " + pk + ") AS rn FROM " + t.name());
                items = List.of(
                        new SelectSpec.Item(Fragment.of("x.k"), CellMode.EXACT),
                        new SelectSpec.Item(Fragment.of("x.rn"), CellMode.EXACT));
                outerWhere.add(Fragment.of("x.rn <= ?", (long) g.between(1, 6)));
                shape = "read.derived.window-inside";
            }
            default -> {
                inner = Fragment.of("SELECT " + key + " AS k, grp, d FROM " + t.name() + " WHERE ")
                        .plus(g.predicate(t, null, true));
                items = List.of(
                        new SelectSpec.Item(Fragment.of("x.k"), CellMode.EXACT),
                        new SelectSpec.Item(Fragment.of("x.d"), CellMode.EXACT));
                shape = "read.derived.filter";
            }
        }
        return new SelectSpec(
                        shape,
                        false,
                        items,
                        Fragment.of("(").plus(inner).plus(") x"),
                        outerWhere,
                        groupBy,
                        null,
                        List.of(),
                        false,
                        null,
                        false,
                        "")
                .render();
    }

    /** Two SELECTs under UNION or UNION ALL, maybe ordered (UNION's distinct rows make ORDER BY 1 total). */
    GeneratedStatement union() {
        Table a = g.pick(List.of(HI, HS, RG, BR, UN));
        Table b = g.pick(List.of(HI, HS, RG, HC, BR));
        boolean all = g.chance(50);
        boolean strings = g.chance(50);
        String ca = strings ? (a == BR ? "name" : "s") : "grp";
        String cb = strings ? (b == BR ? "name" : "s") : b == HC ? "qty" : "grp";
        Fragment sql = Fragment.of("SELECT " + ca + " FROM " + a.name() + " WHERE ")
                .plus(g.predicate(a, null, g.chance(40)))
                .plus(" UNION " + (all ? "ALL " : "") + "SELECT " + cb + " FROM " + b.name() + " WHERE ")
                .plus(g.predicate(b, null, g.chance(40)));
        boolean ordered = !all && g.chance(50);
        if (ordered) {
            sql = sql.plus(" ORDER BY 1");
            if (g.chance(50)) {
                sql = sql.plus(" LIMIT ").plus(g.limit());
            }
        }
        CellMode mode = strings && !all ? CellMode.collated(DifferentialSchema.GCI) : CellMode.EXACT;
        return GeneratedStatement.read(all ? "read.union-all" : "read.union", sql, List.of(mode), ordered);
    }

    /** Scalar subqueries in the projection, IN and EXISTS subqueries, subqueries over other tables. */
    GeneratedStatement subquery() {
        return switch (g.between(0, 5)) {
            case 0 ->
                GeneratedStatement.read(
                        "read.subquery.correlated-binding",
                        Fragment.of("SELECT h.id, (SELECT COUNT(*) FROM hc c WHERE c.pid = h.id) FROM hi h WHERE ")
                                .plus(g.predicate(HI, "h", g.chance(50))),
                        List.of(),
                        false);
            case 1 ->
                GeneratedStatement.read(
                        "read.subquery.scalar-where",
                        Fragment.of("SELECT id, grp FROM hi WHERE grp = (SELECT MAX(grp) FROM "
                                + g.pick(new String[] {"rg", "hs", "br", "un"}) + ")"),
                        List.of(),
                        false);
            case 2 ->
                GeneratedStatement.read(
                        "read.subquery.in",
                        Fragment.of("SELECT id, s FROM hi WHERE id IN (SELECT pid FROM hc WHERE qty > ?)", (long)
                                g.between(0, 9)),
                        List.of(),
                        false);
            case 3 ->
                GeneratedStatement.read(
                        "read.subquery.exists",
                        Fragment.of(
                                "SELECT id FROM hi h WHERE EXISTS (SELECT 1 FROM hc c WHERE c.pid = h.id AND c.qty = ?)",
                                (long) g.between(0, 9)),
                        List.of(),
                        false);
            case 4 ->
                GeneratedStatement.read(
                        "read.subquery.scalar-select",
                        Fragment.of(
                                "SELECT (SELECT COUNT(*) FROM " + g.pick(new String[] {"hi", "hs", "rg"})
                                        + "), (SELECT MAX(id) FROM rg WHERE id < ?) FROM un WHERE id = 1",
                                (long) g.between(-10, 2000)),
                        List.of(),
                        false);
            default ->
                GeneratedStatement.read(
                        "read.subquery.broadcast-outer",
                        Fragment.of("SELECT code, (SELECT COUNT(*) FROM " + g.pick(new String[] {"hi", "rg"})
                                + " x WHERE x.grp = br.grp) FROM br"),
                        List.of(),
                        false);
        };
    }
}
