package io.shardgate.it.differential;

import io.shardgate.it.differential.DifferentialSchema.Column;
import io.shardgate.it.differential.DifferentialSchema.Table;
import io.shardgate.it.differential.DifferentialSchema.Type;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The grammar's leaves: values (existing keys, missing keys, traps), predicates (key equality, IN
 * lists, ranges, non-key comparisons, NULL tests, collation traps), row expressions and aggregates
 * over one table reached through an alias, each aggregate with how its column compares.
 */
final class Clauses {
    /** MySQL's "all the rest of the rows" LIMIT count. */
    static final String LIMIT_MAX = "18446744073709551615";

    private final Random r;

    Clauses(Random r) {
        this.r = r;
    }

    <T> T pick(List<T> items) {
        return items.get(r.nextInt(items.size()));
    }

    <T> T pick(T[] items) {
        return items[r.nextInt(items.length)];
    }

    boolean chance(int percent) {
        return r.nextInt(100) < percent;
    }

    int between(int lo, int hi) {
        return lo + r.nextInt(hi - lo + 1);
    }

    static String col(String alias, String name) {
        return alias == null ? name : alias + "." + name;
    }

    /** A value for a comparison with {@code c} of {@code t}: mostly ones that exist, sometimes traps and misses. */
    Object value(Table t, Column c) {
        if (c.name().equals(t.key()) || (t == DifferentialSchema.HC && c.name().equals("pid"))) {
            return keyValue(t);
        }
        return switch (c.type()) {
            case INT -> chance(90) ? (Object) (long) between(-1, 5) : (Object) (long) between(-100, 100);
            case BIGINT ->
                chance(70)
                        ? DifferentialSchema.BIGS[r.nextInt(DifferentialSchema.BIGS.length)]
                        : (long) between(-5, 70);
            case DECIMAL -> new BigDecimal(pick(DifferentialSchema.DECIMALS));
            case DOUBLE ->
                chance(70)
                        ? DifferentialSchema.DOUBLES[r.nextInt(DifferentialSchema.DOUBLES.length)]
                        : (double) between(-3, 3);
            case STRING -> pick(DifferentialSchema.TRAPS);
            case DATETIME -> new Literal.DateTime(pick(DifferentialSchema.DATETIMES));
        };
    }

    /** A key of {@code t}: an existing one, a case/space variant of one, or a missing one. */
    Object keyValue(Table t) {
        return switch (t.placement()) {
            case HASH_INTEGER ->
                chance(85)
                        ? pick(DifferentialSchema.HI_IDS)
                        : (Object) new long[] {61, 1000, -43, 999_999}[r.nextInt(4)];
            case HASH_STRING -> chance(60) ? pick(DifferentialSchema.HS_KEYS) : pick(STRING_KEY_TRAPS);
            case RANGE ->
                chance(85)
                        ? pick(DifferentialSchema.RG_IDS)
                        : (Object) (long) pick(new Long[] {-2L, 2L, 998L, 1001L, 1_000_000L});
            case BROADCAST -> pick(new String[] {"AA", "aa", "bb", "e", "é", "k", "k ", "ss", "s", "zz", "no"});
            case UNSHARDED -> (long) between(0, 22);
        };
    }

    static final String[] STRING_KEY_TRAPS = {
        "k", "K", "k  ", "s", "S", "ss", "e", "E", "AB", "ab ", "u", "ZED", "zed", "X1", "x1 ", "x31", "none", " "
    };

    /** A predicate over {@code t} reached as {@code alias}; {@code keyed} asks for one on the shard key. */
    Fragment predicate(Table t, String alias, boolean keyed) {
        if (keyed && t.key() != null) {
            return keyPredicate(t, alias);
        }
        Column c = pick(t.columns());
        String x = col(alias, c.name());
        int k = r.nextInt(12);
        return switch (k) {
            case 0 -> Fragment.of(x + " IS NULL");
            case 1 -> Fragment.of(x + " IS NOT NULL");
            case 2 -> Fragment.of(x + " IN (?, ?, ?)", value(t, c), value(t, c), value(t, c));
            case 3 -> Fragment.of("NOT (" + x + " <=> ?)", value(t, c));
            case 4 ->
                c.string()
                        ? Fragment.of(x + " LIKE ?", pick(new String[] {"a%", "k%", "%e", "_", "", "%", "ß%", "s_"}))
                        : Fragment.of(x + " >= ?", value(t, c));
            case 5 ->
                c.string()
                        ? Fragment.of(x + " = ? COLLATE utf8mb4_bin", value(t, c))
                        : Fragment.of(x + " < ?", value(t, c));
            case 6 -> Fragment.of(x + " BETWEEN ? AND ?", value(t, c), value(t, c));
            case 7 -> Fragment.of(x + " <> ?", value(t, c));
            default -> Fragment.of(x + " = ?", value(t, c));
        };
    }

    private Fragment keyPredicate(Table t, String alias) {
        String x = col(alias, t.key());
        int k = r.nextInt(10);
        if (k < 5) {
            return Fragment.of(x + " = ?", keyValue(t));
        }
        if (k < 8) {
            int n = between(1, 5);
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                values.add(keyValue(t));
            }
            return new Fragment(x + " IN (" + String.join(", ", java.util.Collections.nCopies(n, "?")) + ")", values);
        }
        if (k == 8) {
            Object a = keyValue(t);
            Object b = keyValue(t);
            return Fragment.of(x + " BETWEEN ? AND ?", a, b);
        }
        return Fragment.of(x + pick(new String[] {" > ?", " >= ?", " < ?", " <= ?"}), keyValue(t));
    }

    /** A row expression over one column of {@code t} for an ungrouped projection. */
    SelectSpec.Item rowExpression(Table t, String alias) {
        Column c = pick(t.columns());
        String x = col(alias, c.name());
        if (chance(55)) {
            return new SelectSpec.Item(Fragment.of(x), CellMode.EXACT);
        }
        String e = switch (c.type()) {
            case INT -> pick(new String[] {x + " + 1", "COALESCE(" + x + ", -9)", x + " * 2", x + " DIV 2", "-" + x});
            case BIGINT ->
                pick(new String[] {x + " + 0", "-" + x, x + " DIV 7", "CAST(" + x + " AS CHAR)", x + " % 10"});
            case DECIMAL -> pick(new String[] {x + " * 3", x + " / 7", "ROUND(" + x + ", 2)", x + " + 1"});
            case DOUBLE -> pick(new String[] {x + " * 2", x + " / 3", "ROUND(" + x + ", 3)", "FLOOR(" + x + ")"});
            case STRING ->
                pick(new String[] {
                    "CONCAT(" + x + ", '|')", "UPPER(" + x + ")", "LENGTH(" + x + ")", x + " = 'k'", "HEX(" + x + ")"
                });
            case DATETIME ->
                pick(new String[] {
                    x + " + INTERVAL 1 SECOND",
                    "DATE(" + x + ")",
                    "MICROSECOND(" + x + ")",
                    "DATE_FORMAT(" + x + ", '%Y')"
                });
        };
        return new SelectSpec.Item(Fragment.of(e), CellMode.EXACT);
    }

    /** An aggregate MySQL computes and the merge is meant to know (COUNT, SUM, MIN, MAX, AVG). */
    SelectSpec.Item knownAggregate(Table t, String alias) {
        Column c = pick(t.columns());
        String x = col(alias, c.name());
        Column num = numeric(t);
        String n = col(alias, num.name());
        return switch (r.nextInt(6)) {
            case 0 -> new SelectSpec.Item(Fragment.of("COUNT(*)"), CellMode.EXACT);
            case 1 -> new SelectSpec.Item(Fragment.of("COUNT(" + x + ")"), CellMode.EXACT);
            case 2 -> new SelectSpec.Item(Fragment.of("SUM(" + n + ")"), floating(num));
            case 3 -> new SelectSpec.Item(Fragment.of("AVG(" + n + ")"), floating(num));
            case 4 -> new SelectSpec.Item(Fragment.of("MIN(" + x + ")"), minMax(c));
            default -> new SelectSpec.Item(Fragment.of("MAX(" + x + ")"), minMax(c));
        };
    }

    /** COUNT/SUM/AVG over DISTINCT values, and arithmetic over aggregates. */
    SelectSpec.Item distinctAggregate(Table t, String alias) {
        Column c = pick(t.columns());
        String x = col(alias, c.name());
        Column num = numeric(t);
        String n = col(alias, num.name());
        return switch (r.nextInt(7)) {
            case 0, 1 -> new SelectSpec.Item(Fragment.of("COUNT(DISTINCT " + x + ")"), CellMode.EXACT);
            case 2 -> new SelectSpec.Item(Fragment.of("SUM(DISTINCT " + n + ")"), floating(num));
            case 3 -> new SelectSpec.Item(Fragment.of("AVG(DISTINCT " + n + ")"), floating(num));
            case 4 -> new SelectSpec.Item(Fragment.of("SUM(" + n + ") / COUNT(*)"), floating(num));
            case 5 -> new SelectSpec.Item(Fragment.of("MAX(" + n + ") - MIN(" + n + ")"), floating(num));
            default -> new SelectSpec.Item(Fragment.of("COUNT(*) + COUNT(" + x + ") * 10"), CellMode.EXACT);
        };
    }

    /** Aggregates a merge may not know: bitwise, statistical, GROUP_CONCAT, JSON_ARRAYAGG. */
    SelectSpec.Item unknownAggregate(Table t, String alias) {
        Column num = numeric(t);
        String n = col(alias, num.name());
        String grp = col(alias, t.columns().stream().anyMatch(c -> c.name().equals("grp")) ? "grp" : t.pk().get(0));
        String pk = String.join(", ", t.pk().stream().map(p -> col(alias, p)).toList());
        Column str = t.columns().stream()
                .filter(Column::string)
                .findFirst()
                .orElse(t.columns().get(0));
        String s = col(alias, str.name());
        return switch (r.nextInt(11)) {
            case 0 -> new SelectSpec.Item(Fragment.of("BIT_OR(" + grp + ")"), CellMode.EXACT);
            case 1 -> new SelectSpec.Item(Fragment.of("BIT_AND(" + grp + ")"), CellMode.EXACT);
            case 2 -> new SelectSpec.Item(Fragment.of("BIT_XOR(" + grp + ")"), CellMode.EXACT);
            case 3 -> new SelectSpec.Item(Fragment.of("STD(" + n + ")"), CellMode.FLOAT);
            case 4 -> new SelectSpec.Item(Fragment.of("VARIANCE(" + n + ")"), CellMode.FLOAT);
            case 5 -> new SelectSpec.Item(Fragment.of("STDDEV_SAMP(" + n + ")"), CellMode.FLOAT);
            case 6 -> new SelectSpec.Item(Fragment.of("GROUP_CONCAT(" + s + " ORDER BY " + pk + ")"), CellMode.EXACT);
            case 7 ->
                new SelectSpec.Item(
                        Fragment.of("GROUP_CONCAT(DISTINCT " + grp + " ORDER BY " + grp + " SEPARATOR ';')"),
                        CellMode.EXACT);
            case 8 ->
                new SelectSpec.Item(Fragment.of("JSON_ARRAYAGG(" + grp + " ORDER BY " + pk + ")"), CellMode.EXACT);
            case 9 -> new SelectSpec.Item(Fragment.of("VAR_SAMP(" + n + ")"), CellMode.FLOAT);
            default ->
                new SelectSpec.Item(Fragment.of("GROUP_CONCAT(" + grp + " ORDER BY " + pk + " DESC)"), CellMode.EXACT);
        };
    }

    Column numeric(Table t) {
        List<Column> nums = t.columns().stream().filter(Column::numeric).toList();
        return pick(nums);
    }

    /** SUM/AVG of a DOUBLE depends on the order of addition: compare within a tolerance; else exactly. */
    static CellMode floating(Column c) {
        return c.type() == Type.DOUBLE ? CellMode.FLOAT : CellMode.EXACT;
    }

    /** MIN/MAX of a string may return any of several strings equal under its collation. */
    static CellMode minMax(Column c) {
        return c.string() ? CellMode.collated(c.collation()) : CellMode.EXACT;
    }

    /** A string column's mode where its value stands for a group (GROUP BY, DISTINCT, UNION). */
    static CellMode grouped(Column c) {
        return c.string() ? CellMode.collated(c.collation()) : CellMode.EXACT;
    }

    /** A LIMIT clause: count, offset and count, or MySQL's 2^64-1 count. */
    Fragment limit() {
        int k = r.nextInt(10);
        if (k < 2) {
            return Fragment.of(chance(50) ? LIMIT_MAX : between(0, 3) + ", " + LIMIT_MAX);
        }
        if (k < 4) {
            return Fragment.of("? OFFSET ?", (long) between(0, 5), (long) between(0, 6));
        }
        if (k < 6) {
            return Fragment.of(between(0, 4) + ", " + between(0, 10));
        }
        return Fragment.of("?", (long) pick(new Integer[] {0, 1, 2, 3, 5, 10, 100}));
    }
}
