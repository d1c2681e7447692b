package io.shardgate.it.differential;

import java.util.ArrayList;
import java.util.List;

/**
 * A generated SELECT kept in parts, so that it renders to SQL and a shrinker can drop one part at a
 * time (a WHERE conjunct, a projection, HAVING, DISTINCT, ORDER BY with its LIMIT, the LIMIT) and
 * keep the smaller statement while it still differs. A LIMIT is only ever paired with a total ORDER
 * BY (or has offset 0 and no ORDER BY, when it cannot cut), so every form is deterministic in MySQL.
 *
 * @param items the projections, each with how its column compares
 * @param from the FROM clause text (tables, joins, a derived table)
 * @param where conjuncts joined by AND
 * @param groupBy GROUP BY expressions (empty: none)
 * @param having HAVING condition or null
 * @param orderBy ORDER BY items (empty: none)
 * @param orderTotal whether the ORDER BY fixes the order of the output rows
 * @param limit LIMIT clause text after the word LIMIT, or null
 * @param limitNeedsOrder whether dropping the ORDER BY makes the LIMIT nondeterministic
 * @param tail text after everything (e.g. {@code FOR UPDATE}), or empty
 */
record SelectSpec(
        String shape,
        boolean distinct,
        List<Item> items,
        Fragment from,
        List<Fragment> where,
        List<Fragment> groupBy,
        Fragment having,
        List<Fragment> orderBy,
        boolean orderTotal,
        Fragment limit,
        boolean limitNeedsOrder,
        String tail) {

    /** One projection and how its column compares. */
    record Item(Fragment expr, CellMode mode) {}

    GeneratedStatement render() {
        Fragment sql = Fragment.of("SELECT " + (distinct ? "DISTINCT " : ""))
                .plus(Fragment.join(", ", items.stream().map(Item::expr).toList()))
                .plus(" FROM ")
                .plus(from);
        if (!where.isEmpty()) {
            sql = sql.plus(" WHERE ").plus(Fragment.join(" AND ", where));
        }
        if (!groupBy.isEmpty()) {
            sql = sql.plus(" GROUP BY ").plus(Fragment.join(", ", groupBy));
        }
        if (having != null) {
            sql = sql.plus(" HAVING ").plus(having);
        }
        if (!orderBy.isEmpty()) {
            sql = sql.plus(" ORDER BY ").plus(Fragment.join(", ", orderBy));
        }
        if (limit != null) {
            sql = sql.plus(" LIMIT ").plus(limit);
        }
        sql = sql.plus(tail);
        boolean ordered = !orderBy.isEmpty() && orderTotal;
        return new GeneratedStatement(
                shape,
                sql,
                items.stream().map(Item::mode).toList(),
                ordered,
                java.util.Set.of(),
                List.of(),
                List.of(),
                this);
    }

    /** Smaller variants, each missing one part; every one is as deterministic as this one. */
    List<SelectSpec> shrinkings() {
        List<SelectSpec> out = new ArrayList<>();
        for (int i = 0; i < where.size(); i++) {
            List<Fragment> w = new ArrayList<>(where);
            w.remove(i);
            out.add(new SelectSpec(
                    shape,
                    distinct,
                    items,
                    from,
                    w,
                    groupBy,
                    having,
                    orderBy,
                    orderTotal,
                    limit,
                    limitNeedsOrder,
                    tail));
        }
        if (having != null) {
            out.add(new SelectSpec(
                    shape,
                    distinct,
                    items,
                    from,
                    where,
                    groupBy,
                    null,
                    orderBy,
                    orderTotal,
                    limit,
                    limitNeedsOrder,
                    tail));
        }
        if (limit != null) {
            out.add(new SelectSpec(
                    shape, distinct, items, from, where, groupBy, having, orderBy, orderTotal, null, false, tail));
        }
        if (!orderBy.isEmpty() && (limit == null || !limitNeedsOrder)) {
            out.add(new SelectSpec(
                    shape, distinct, items, from, where, groupBy, having, List.of(), false, limit, false, tail));
        }
        if (!orderBy.isEmpty() && limit != null && limitNeedsOrder) {
            out.add(new SelectSpec(
                    shape, distinct, items, from, where, groupBy, having, List.of(), false, null, false, tail));
        }
        if (distinct && orderBy.isEmpty()) {
            out.add(new SelectSpec(
                    shape,
                    false,
                    groupBy.isEmpty()
                            ? items.stream()
                                    .map(i -> i.mode().kind() == CellMode.Kind.COLLATED && !aggregate(i)
                                            ? new Item(i.expr(), CellMode.EXACT)
                                            : i)
                                    .toList()
                            : items,
                    from,
                    where,
                    groupBy,
                    having,
                    orderBy,
                    orderTotal,
                    limit,
                    limitNeedsOrder,
                    tail));
        }
        // a projection may go unless the ORDER BY or DISTINCT refers to it by position or it is the last
        if (items.size() > 1
                && !distinct
                && orderBy.stream().noneMatch(o -> o.text().matches("\\d+.*"))) {
            for (int i = 0; i < items.size(); i++) {
                List<Item> fewer = new ArrayList<>(items);
                fewer.remove(i);
                out.add(new SelectSpec(
                        shape,
                        distinct,
                        fewer,
                        from,
                        where,
                        groupBy,
                        having,
                        orderBy,
                        orderTotal,
                        limit,
                        limitNeedsOrder,
                        tail));
            }
        }
        return out;
    }

    private static boolean aggregate(Item i) {
        return i.expr().text().matches("(?i)^(MIN|MAX)\\(.*");
    }
}
