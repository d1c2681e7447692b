package io.shardgate.it.differential;

import static io.shardgate.it.differential.DifferentialSchema.BR;
import static io.shardgate.it.differential.DifferentialSchema.HC;
import static io.shardgate.it.differential.DifferentialSchema.HI;
import static io.shardgate.it.differential.DifferentialSchema.HS;
import static io.shardgate.it.differential.DifferentialSchema.RG;
import static io.shardgate.it.differential.DifferentialSchema.UN;

import io.shardgate.it.differential.DifferentialSchema.Column;
import io.shardgate.it.differential.DifferentialSchema.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * INSERT (with and without column list, multi-row, IGNORE, ON DUPLICATE KEY UPDATE, REPLACE),
 * UPDATE and DELETE (with and without key predicates, modifiers LOW_PRIORITY / IGNORE / QUICK,
 * ORDER BY primary key with LIMIT), shard-key changes, INSERT ... SELECT, scalar subqueries in
 * VALUES and SET. Only forms whose effect MySQL fixes: a LIMIT on UPDATE/DELETE always comes with
 * ORDER BY the primary key; a key change only for one row.
 */
final class WriteGenerator {
    private final Clauses g;
    private final Random r;

    WriteGenerator(Clauses g, Random r) {
        this.g = g;
        this.r = r;
    }

    private Table writable() {
        return g.pick(List.of(HI, HI, HS, HS, RG, RG, HC, BR, UN));
    }

    /** A key for a new row: fresh, an existing one (duplicate) or one equal to an existing one under the collation. */
    Object newKey(Table t) {
        return switch (t.placement()) {
            case HASH_INTEGER ->
                g.chance(25)
                        ? g.keyValue(t)
                        : (Object) (long) (t == HC ? g.pick(DifferentialSchema.HI_IDS) : 60 + g.between(1, 40));
            case HASH_STRING ->
                g.chance(40)
                        ? g.pick(Clauses.STRING_KEY_TRAPS)
                        : g.chance(30) ? g.pick(DifferentialSchema.HS_KEYS) : "n" + g.between(1, 40);
            case RANGE ->
                g.chance(25)
                        ? g.keyValue(t)
                        : (Object) (long) g.pick(new Integer[] {
                            -1000 - g.between(0, 50), 1700 + g.between(0, 50), 2 + 37 * g.between(0, 20), 5000
                        });
            case BROADCAST -> g.chance(40) ? g.keyValue(t) : "n" + g.between(1, 30);
            case UNSHARDED -> (long) g.between(15, 40);
        };
    }

    private Object value(Table t, Column c) {
        if (c.name().equals("id") && t == HC) {
            return (long) g.between(1, 200);
        }
        if (t.pk().get(0).equals(c.name())) {
            return newKey(t);
        }
        return r.nextInt(8) == 0 ? null : g.value(t, c);
    }

    GeneratedStatement insert() {
        Table t = writable();
        int variant = g.between(0, 9);
        boolean columnList = variant != 0;
        String verb = variant == 1 ? "INSERT IGNORE INTO " : variant == 2 ? "REPLACE INTO " : "INSERT INTO ";
        String shape = variant == 0
                ? "write.insert.no-column-list"
                : variant == 1 ? "write.insert-ignore" : variant == 2 ? "write.replace" : "write.insert";
        List<Column> cols = t.columns();
        if (columnList && g.chance(40)) {
            cols = cols.subList(0, Math.max(t.pk().size(), g.between(1, cols.size())));
        }
        int n = g.chance(50) ? 1 : g.between(2, 4);
        List<Fragment> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            List<Fragment> values = new ArrayList<>();
            for (Column c : cols) {
                values.add(Fragment.of("?", value(t, c)));
            }
            rows.add(Fragment.of("(").plus(Fragment.join(", ", values)).plus(")"));
        }
        Fragment sql = Fragment.of(verb
                        + t.name()
                        + (columnList
                                ? " ("
                                        + String.join(
                                                ", ",
                                                cols.stream().map(Column::name).toList()) + ")"
                                : ""))
                .plus(" VALUES ")
                .plus(Fragment.join(", ", rows));
        if (variant >= 7) {
            Column c = nonKey(t);
            sql = sql.plus(" ON DUPLICATE KEY UPDATE " + c.name() + " = "
                    + g.pick(new String[] {"VALUES(" + c.name() + ")", c.name(), "NULL"}));
            shape = "write.insert-odku";
        }
        return GeneratedStatement.write(shape(shape, t), sql, t.name());
    }

    private Column nonKey(Table t) {
        List<Column> cols =
                t.columns().stream().filter(c -> !t.pk().contains(c.name())).toList();
        return g.pick(cols);
    }

    private static String shape(String base, Table t) {
        return base
                + switch (t.placement()) {
                    case HASH_INTEGER -> t == HC ? ".binding" : ".hash-int";
                    case HASH_STRING -> ".hash-string";
                    case RANGE -> ".range";
                    case BROADCAST -> ".broadcast";
                    case UNSHARDED -> ".unsharded";
                };
    }

    private String setExpression(Column c) {
        return switch (c.type()) {
            case INT -> g.pick(new String[] {c.name() + " + 1", "NULL", "COALESCE(" + c.name() + ", 0) * 2"});
            case BIGINT -> g.pick(new String[] {c.name() + " + 1", "-" + c.name(), c.name() + " DIV 2"});
            case DECIMAL -> g.pick(new String[] {c.name() + " * 2", c.name() + " - 1", "NULL"});
            case DOUBLE -> g.pick(new String[] {c.name() + " + 0.1", c.name() + " / 3"});
            case STRING -> g.pick(new String[] {"CONCAT(" + c.name() + ", 'x')", "UPPER(" + c.name() + ")", "'ß'"});
            case DATETIME -> c.name() + " + INTERVAL 1 MICROSECOND";
        };
    }

    /** UPDATE or DELETE with modifiers, a WHERE by key or not, maybe ORDER BY pk LIMIT n. */
    GeneratedStatement updateOrDelete(boolean update) {
        Table t = writable();
        boolean modifier = g.chance(35);
        String mods = "";
        if (modifier) {
            mods = update
                    ? g.pick(new String[] {"LOW_PRIORITY ", "IGNORE ", "LOW_PRIORITY IGNORE "})
                    : g.pick(new String[] {"LOW_PRIORITY ", "QUICK ", "IGNORE ", "LOW_PRIORITY QUICK IGNORE "});
        }
        boolean keyed = t.key() != null && g.chance(50);
        List<Fragment> where = new ArrayList<>();
        if (keyed) {
            where.add(g.predicate(t, null, true));
        }
        if (!keyed || g.chance(30)) {
            where.add(g.predicate(t, null, false));
        }
        Fragment sql = update
                ? Fragment.of("UPDATE " + mods + t.name() + " SET " + assignment(t))
                : Fragment.of("DELETE " + mods + "FROM " + t.name());
        sql = sql.plus(" WHERE ").plus(Fragment.join(" AND ", where));
        boolean limited = g.chance(20);
        if (limited) {
            sql = sql.plus(" ORDER BY " + t.orderByPk() + " LIMIT ").plus(Fragment.of("?", (long) g.between(0, 3)));
        }
        String shape = (update ? "write.update" : "write.delete")
                + (modifier ? ".modifier" : "")
                + (keyed ? ".by-key" : ".scatter")
                + (limited ? ".limit" : "");
        return GeneratedStatement.write(shape(shape, t), sql, t.name());
    }

    private String assignment(Table t) {
        Column c = nonKey(t);
        String a = c.name() + " = " + setExpression(c);
        if (g.chance(30)) {
            Column d = nonKey(t);
            if (!d.equals(c)) {
                a += ", " + d.name() + " = " + setExpression(d);
            }
        }
        return a;
    }

    /** UPDATE of the shard key of one row: moves it to another shard (or collides). */
    GeneratedStatement keyChange() {
        Table t = g.pick(List.of(HI, HS, RG));
        Fragment sql = Fragment.of(
                "UPDATE " + (g.chance(40) ? "IGNORE " : "") + t.name() + " SET " + t.key() + " = ? WHERE " + t.key()
                        + " = ?",
                newKey(t),
                g.keyValue(t));
        return GeneratedStatement.write(shape("write.update.shard-key", t), sql, t.name());
    }

    /** INSERT ... SELECT between strategies: into the broadcast, unsharded and sharded tables. */
    GeneratedStatement insertSelect() {
        long lo = g.between(-50, 60);
        long hi = lo + g.between(0, 30);
        return switch (g.between(0, 4)) {
            case 0 ->
                GeneratedStatement.write(
                        "write.insert-select.into-unsharded",
                        Fragment.of(
                                "INSERT INTO un (id, s, grp, d) SELECT id + 100, s, grp, d FROM hi WHERE id BETWEEN ?"
                                        + " AND ?",
                                lo,
                                hi),
                        "un");
            case 1 ->
                GeneratedStatement.write(
                        "write.insert-select.into-broadcast",
                        Fragment.of(
                                "INSERT INTO br (code, name, grp) SELECT CONCAT('i', id), s, grp FROM hi WHERE id"
                                        + " BETWEEN ? AND ?",
                                lo,
                                hi),
                        "br");
            case 2 ->
                GeneratedStatement.write(
                        "write.insert-select.into-hash",
                        Fragment.of(
                                "INSERT INTO hi (id, grp, s, d) SELECT id + 5000, grp, s, d FROM rg WHERE id BETWEEN ?"
                                        + " AND ?",
                                lo * 20,
                                hi * 20),
                        "hi");
            case 3 ->
                GeneratedStatement.write(
                        "write.insert-select.binding",
                        Fragment.of(
                                "INSERT INTO hc (pid, id, qty, s) SELECT id, 900, grp, s FROM hi WHERE id BETWEEN ?"
                                        + " AND ?",
                                lo,
                                hi),
                        "hc");
            default ->
                GeneratedStatement.write(
                        "write.insert-select.into-range",
                        Fragment.of(
                                "INSERT INTO rg (id, grp, s) SELECT id + 3000, grp, s FROM hi WHERE id BETWEEN ? AND"
                                        + " ?",
                                lo,
                                hi),
                        "rg");
        };
    }

    /** Scalar subqueries inside INSERT ... VALUES and UPDATE ... SET. */
    GeneratedStatement subqueryWrite() {
        String over = g.pick(new String[] {"hi", "rg", "hs"});
        return switch (g.between(0, 2)) {
            case 0 ->
                GeneratedStatement.write(
                        "write.insert.scalar-subquery",
                        Fragment.of("INSERT INTO un (id, grp) VALUES (?, (SELECT COUNT(*) FROM " + over + "))", (long)
                                g.between(21, 40)),
                        "un");
            case 1 ->
                GeneratedStatement.write(
                        "write.update.scalar-subquery",
                        Fragment.of(
                                "UPDATE un SET grp = (SELECT MAX(grp) FROM " + over + " WHERE grp < ?) WHERE id = ?",
                                (long) g.between(0, 5),
                                (long) g.between(1, 20)),
                        "un");
            default ->
                GeneratedStatement.write(
                        "write.update.scalar-subquery-sharded",
                        Fragment.of("UPDATE hi SET grp = (SELECT COUNT(*) FROM br) WHERE id = ?", g.keyValue(HI)),
                        "hi");
        };
    }
}
