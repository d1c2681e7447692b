package io.shardgate.it.differential;

import static io.shardgate.it.differential.Clauses.col;

import io.shardgate.it.differential.DifferentialSchema.Column;
import io.shardgate.it.differential.DifferentialSchema.Table;
import java.util.ArrayList;
import java.util.List;

/**
 * SELECTs over one table: point, IN-list, range and scatter reads, ORDER BY with LIMIT/OFFSET (up
 * to 2^64-1), aggregates (known, DISTINCT, unknown to a merge), GROUP BY with HAVING, DISTINCT and
 * window functions. Every statement is deterministic in MySQL: LIMIT only under a total ORDER BY,
 * GROUP_CONCAT and JSON_ARRAYAGG only with an ORDER BY inside, no bare columns beside aggregates.
 */
final class ReadGenerator {
    private final Clauses g;

    ReadGenerator(Clauses g) {
        this.g = g;
    }

    Table anyTable() {
        int k = g.between(0, 19);
        if (k < 6) {
            return DifferentialSchema.HI;
        }
        if (k < 10) {
            return DifferentialSchema.HS;
        }
        if (k < 14) {
            return DifferentialSchema.RG;
        }
        if (k < 16) {
            return DifferentialSchema.HC;
        }
        return k < 18 ? DifferentialSchema.BR : DifferentialSchema.UN;
    }

    private List<Fragment> where(Table t, String alias, int keyed, int max) {
        List<Fragment> w = new ArrayList<>();
        if (keyed > 0) {
            w.add(g.predicate(t, alias, true));
        }
        int n = g.between(0, max);
        for (int i = 0; i < n; i++) {
            w.add(g.predicate(t, alias, false));
        }
        return w;
    }

    private static String shape(String base, Table t) {
        return base + (t.sharded() ? "" : t == DifferentialSchema.BR ? ".broadcast" : ".unsharded");
    }

    /** Projections, WHERE by key (point, IN, range) or not, total or partial ORDER BY, maybe LIMIT. */
    GeneratedStatement plain(String base, boolean keyed, boolean withLimit) {
        return plain(base, keyed, withLimit, false);
    }

    /** As {@link #plain(String, boolean, boolean)}; {@code totalOrder} forces a total ORDER BY. */
    GeneratedStatement plain(String base, boolean keyed, boolean withLimit, boolean totalOrder) {
        Table t = anyTable();
        List<SelectSpec.Item> items = new ArrayList<>();
        int n = g.between(1, 4);
        for (int i = 0; i < n; i++) {
            items.add(g.rowExpression(t, null));
        }
        if (g.chance(8)) {
            items = List.of(new SelectSpec.Item(Fragment.of("*"), CellMode.EXACT));
        }
        List<Fragment> orderBy = new ArrayList<>();
        boolean total = false;
        if (withLimit || totalOrder || g.chance(40)) {
            Column c = g.pick(t.columns());
            orderBy.add(Fragment.of(c.name() + (g.chance(50) ? " DESC" : "")));
            if (withLimit || totalOrder || g.chance(70)) {
                for (String pk : t.pk()) {
                    orderBy.add(Fragment.of(pk + (g.chance(30) ? " DESC" : "")));
                }
                total = true;
            }
        }
        Fragment limit = null;
        boolean needsOrder = false;
        if (withLimit) {
            limit = g.limit();
            needsOrder = true;
        } else if (g.chance(10)) {
            limit = Fragment.of(Clauses.LIMIT_MAX);
        }
        String shape = shape(base, t);
        if (limit != null && limit.text().contains(Clauses.LIMIT_MAX)) {
            shape = shape(base.startsWith("read.order") ? "read.limit-max" : base + ".limit-max", t);
        }
        return new SelectSpec(
                        shape,
                        false,
                        items,
                        Fragment.of(t.name()),
                        where(t, null, keyed ? 1 : 0, 2),
                        List.of(),
                        null,
                        orderBy,
                        total,
                        limit,
                        needsOrder,
                        "")
                .render();
    }

    /** Aggregates without GROUP BY: {@code kind} 0 known, 1 DISTINCT and arithmetic, 2 unknown to the merge. */
    GeneratedStatement aggregate(int kind) {
        Table t = anyTable();
        List<SelectSpec.Item> items = new ArrayList<>();
        int n = g.between(1, 3);
        for (int i = 0; i < n; i++) {
            items.add(
                    switch (kind) {
                        case 0 -> g.knownAggregate(t, null);
                        case 1 -> g.chance(60) ? g.distinctAggregate(t, null) : g.knownAggregate(t, null);
                        default -> g.chance(60) ? g.unknownAggregate(t, null) : g.knownAggregate(t, null);
                    });
        }
        String base = kind == 0 ? "read.aggregate" : kind == 1 ? "read.aggregate-distinct" : "read.aggregate-unknown";
        // one row whatever the order: a LIMIT keeps or drops it deterministically
        Fragment limit =
                g.chance(12) ? Fragment.of(g.pick(new String[] {"0", "1", "1, 1", "0, 1", "1 OFFSET 1"})) : null;
        if (limit != null) {
            base += ".limit";
        }
        return new SelectSpec(
                        shape(base, t),
                        false,
                        items,
                        Fragment.of(t.name()),
                        where(t, null, g.chance(25) ? 1 : 0, 2),
                        List.of(),
                        null,
                        List.of(),
                        false,
                        limit,
                        false,
                        "")
                .render();
    }

    /** GROUP BY one or two columns with aggregates, maybe HAVING, ORDER BY and LIMIT. */
    GeneratedStatement groupBy() {
        Table t = anyTable();
        List<Column> keys = new ArrayList<>();
        int nk = g.chance(70) ? 1 : 2;
        while (keys.size() < nk) {
            Column c = g.pick(t.columns());
            if (!keys.contains(c) && c.type() != DifferentialSchema.Type.DOUBLE) {
                keys.add(c);
            }
        }
        List<SelectSpec.Item> items = new ArrayList<>();
        List<Fragment> groupBy = new ArrayList<>();
        for (Column k : keys) {
            items.add(new SelectSpec.Item(Fragment.of(k.name()), Clauses.grouped(k)));
            groupBy.add(Fragment.of(k.name()));
        }
        int n = g.between(1, 3);
        boolean unknown = g.chance(25);
        boolean distinct = g.chance(25);
        for (int i = 0; i < n; i++) {
            items.add(
                    unknown && g.chance(50)
                            ? g.unknownAggregate(t, null)
                            : distinct && g.chance(50) ? g.distinctAggregate(t, null) : g.knownAggregate(t, null));
        }
        Fragment having = null;
        if (g.chance(35)) {
            Column num = g.numeric(t);
            having = g.pick(List.of(
                    Fragment.of("COUNT(*) > ?", (long) g.between(0, 3)),
                    Fragment.of("SUM(" + num.name() + ") > ?", g.value(t, num)),
                    Fragment.of("MIN(" + keys.get(0).name() + ") IS NOT NULL"),
                    Fragment.of("MAX(" + num.name() + ") >= ?", g.value(t, num)),
                    Fragment.of("COUNT(DISTINCT " + g.pick(t.columns()).name() + ") >= ?", (long) g.between(1, 3))));
        }
        List<Fragment> orderBy = new ArrayList<>();
        boolean total = false;
        if (g.chance(60)) {
            if (g.chance(30)) {
                orderBy.add(Fragment.of("COUNT(*)" + (g.chance(50) ? " DESC" : "")));
            }
            if (g.chance(85)) {
                for (Fragment k : groupBy) {
                    orderBy.add(k.plus(g.chance(40) ? " DESC" : ""));
                }
                total = true;
            }
            if (orderBy.isEmpty()) {
                orderBy.add(groupBy.get(0));
                total = groupBy.size() == 1;
            }
        }
        Fragment limit = total && g.chance(35) ? g.limit() : null;
        String shape = having != null ? "read.group-by.having" : "read.group-by";
        if (unknown) {
            shape += ".unknown-aggregate";
        }
        if (limit != null) {
            shape += ".limit";
        }
        return new SelectSpec(
                        shape(shape, t),
                        false,
                        items,
                        Fragment.of(t.name()),
                        where(t, null, g.chance(20) ? 1 : 0, 1),
                        groupBy,
                        having,
                        orderBy,
                        total,
                        limit,
                        limit != null,
                        "")
                .render();
    }

    /** SELECT DISTINCT over one to three columns, maybe ordered by all of them with a LIMIT. */
    GeneratedStatement distinct() {
        Table t = anyTable();
        List<SelectSpec.Item> items = new ArrayList<>();
        List<Fragment> orderBy = new ArrayList<>();
        int n = g.between(1, 3);
        List<Column> used = new ArrayList<>();
        while (used.size() < n) {
            Column c = g.pick(t.columns());
            if (!used.contains(c)) {
                used.add(c);
                items.add(new SelectSpec.Item(Fragment.of(c.name()), Clauses.grouped(c)));
                orderBy.add(Fragment.of(c.name() + (g.chance(30) ? " DESC" : "")));
            }
        }
        boolean ordered = g.chance(50);
        Fragment limit = ordered && g.chance(50) ? g.limit() : null;
        return new SelectSpec(
                        shape(limit != null ? "read.distinct.limit" : "read.distinct", t),
                        true,
                        items,
                        Fragment.of(t.name()),
                        where(t, null, g.chance(20) ? 1 : 0, 1),
                        List.of(),
                        null,
                        ordered ? orderBy : List.of(),
                        ordered,
                        limit,
                        limit != null,
                        "")
                .render();
    }

    /** Window functions over one table, on one shard (key equality) or several. */
    GeneratedStatement window() {
        Table t = g.chance(50) ? DifferentialSchema.HI : g.chance(50) ? DifferentialSchema.RG : DifferentialSchema.HS;
        String pk = t.orderByPk();
        Column num = g.numeric(t);
        String part = g.pick(new String[] {"", "PARTITION BY grp ", "PARTITION BY s "});
        List<SelectSpec.Item> items = new ArrayList<>();
        items.add(new SelectSpec.Item(Fragment.of(pk), CellMode.EXACT));
        String[] windows = {
            "ROW_NUMBER() OVER (" + part + "ORDER BY " + pk + ")",
            "RANK() OVER (" + part + "ORDER BY grp)",
            "DENSE_RANK() OVER (ORDER BY s)",
            "COUNT(*) OVER (" + part.trim() + ")",
            "SUM(" + num.name() + ") OVER (" + part.trim() + ")",
            "LAG(grp) OVER (ORDER BY " + pk + ")",
            "FIRST_VALUE(s) OVER (" + part + "ORDER BY " + pk + ")",
            "MAX(grp) OVER (" + part + "ORDER BY " + pk + " ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"
        };
        int n = g.between(1, 2);
        for (int i = 0; i < n; i++) {
            String w = g.pick(windows);
            items.add(
                    new SelectSpec.Item(Fragment.of(w), w.startsWith("SUM") ? Clauses.floating(num) : CellMode.EXACT));
        }
        boolean keyed = g.chance(30);
        return new SelectSpec(
                        keyed ? "read.window.one-shard" : "read.window",
                        false,
                        items,
                        Fragment.of(t.name()),
                        keyed ? List.of(Fragment.of(t.key() + " = ?", g.keyValue(t))) : where(t, null, 0, 1),
                        List.of(),
                        null,
                        g.chance(40) ? List.of(Fragment.of(pk)) : List.of(),
                        true,
                        null,
                        false,
                        "")
                .render();
    }

    static String alias(Table t) {
        return t.name().substring(0, 1);
    }

    /** A projection of {@code t} as {@code alias} for joins: a column, grouped-compared when it may stand for a group. */
    SelectSpec.Item column(Table t, String alias) {
        Column c = g.pick(t.columns());
        return new SelectSpec.Item(Fragment.of(col(alias, c.name())), CellMode.EXACT);
    }
}
