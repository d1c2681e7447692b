package io.shardgate.it.differential;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compares the router's answer with the oracle's as a client of MySQL may: errors by code, result
 * columns by label and type name, rows in order when the statement's ORDER BY is total and as
 * multisets otherwise; a {@link CellMode.Kind#COLLATED} cell by its weight under the collation
 * (asked of the oracle with {@code WEIGHT_STRING}, trailing spaces dropped: every collation here is
 * PAD SPACE), a {@link CellMode.Kind#FLOAT} cell within a relative 1e-9; affected rows and then
 * the number of warnings exactly.
 */
final class AnswerComparison {
    /** Relative tolerance for DOUBLE aggregates whose order of addition may differ. */
    static final double RELATIVE = 1e-9;

    /** One difference: its kind (the second half of its class) and what differs. */
    record Difference(String kind, String detail) {}

    private final Connection oracle;
    private final Map<String, String> weights = new HashMap<>();

    AnswerComparison(Connection oracle) {
        this.oracle = oracle;
    }

    /** The difference between the answers, or null when the router answered as the oracle did. */
    Difference compare(GeneratedStatement st, Answer router, Answer want) throws SQLException {
        if (router.lost()) {
            return new Difference("connection-lost", router.toString());
        }
        if (router.failed() || want.failed()) {
            if (!router.failed()) {
                return new Difference("router-succeeded-where-mysql-fails", "oracle: " + want.error());
            }
            if (!want.failed()) {
                return new Difference("router-error", router.errorCode() + ": " + router.error());
            }
            return router.errorCode() == want.errorCode()
                    ? null
                    : new Difference("error-code", router.errorCode() + " where MySQL gives " + want.errorCode());
        }
        if (router.resultSet() != want.resultSet()) {
            return new Difference("result-kind", router.resultSet() ? "rows where MySQL gives an OK" : "OK where rows");
        }
        if (!router.resultSet()) {
            return router.updateCount() == want.updateCount()
                    ? null
                    : new Difference(
                            "affected-rows",
                            router.updateCount() + " rows affected where MySQL affects " + want.updateCount());
        }
        if (!router.columns().equals(want.columns())) {
            if (router.columns().size() != want.columns().size()) {
                return new Difference("column-count", router.columns() + " vs " + want.columns());
            }
            List<String> names =
                    router.columns().stream().map(c -> c.replaceAll(":.*", "")).toList();
            List<String> wantNames =
                    want.columns().stream().map(c -> c.replaceAll(":.*", "")).toList();
            return new Difference(
                    names.equals(wantNames) ? "column-type" : "column-name",
                    router.columns() + " vs " + want.columns());
        }
        if (router.rows().size() != want.rows().size()) {
            return new Difference(
                    "row-count",
                    router.rows().size() + " rows where MySQL returns "
                            + want.rows().size());
        }
        List<List<String>> got = canonical(st, router.rows());
        List<List<String>> exp = canonical(st, want.rows());
        if (!st.ordered()) {
            Comparator<List<String>> bySortKey = Comparator.comparing(row -> sortKey(st, row));
            got.sort(bySortKey);
            exp.sort(bySortKey);
        }
        for (int i = 0; i < got.size(); i++) {
            for (int j = 0; j < got.get(i).size(); j++) {
                if (!same(mode(st, j), got.get(i).get(j), exp.get(i).get(j))) {
                    boolean asSet = st.ordered() && sameAsMultiset(st, got, exp);
                    return new Difference(
                            asSet ? "row-order" : "row-values",
                            "row " + i + " column " + (j + 1) + ": "
                                    + got.get(i).get(j) + " where MySQL gives "
                                    + exp.get(i).get(j));
                }
            }
        }
        return null;
    }

    private boolean sameAsMultiset(GeneratedStatement st, List<List<String>> got, List<List<String>> exp) {
        List<List<String>> a = new ArrayList<>(got);
        List<List<String>> b = new ArrayList<>(exp);
        Comparator<List<String>> bySortKey = Comparator.comparing(row -> sortKey(st, row));
        a.sort(bySortKey);
        b.sort(bySortKey);
        for (int i = 0; i < a.size(); i++) {
            for (int j = 0; j < a.get(i).size(); j++) {
                if (!same(mode(st, j), a.get(i).get(j), b.get(i).get(j))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static CellMode mode(GeneratedStatement st, int column) {
        return column < st.modes().size() ? st.modes().get(column) : CellMode.EXACT;
    }

    private List<List<String>> canonical(GeneratedStatement st, List<List<String>> rows) throws SQLException {
        List<List<String>> out = new ArrayList<>(rows.size());
        for (List<String> row : rows) {
            List<String> cells = new ArrayList<>(row.size());
            for (int j = 0; j < row.size(); j++) {
                String v = row.get(j);
                CellMode m = mode(st, j);
                cells.add(v != null && m.kind() == CellMode.Kind.COLLATED ? "weight:" + weight(m.collation(), v) : v);
            }
            out.add(cells);
        }
        return out;
    }

    private static String sortKey(GeneratedStatement st, List<String> row) {
        StringBuilder key = new StringBuilder();
        for (int j = 0; j < row.size(); j++) {
            String v = row.get(j);
            if (v != null && mode(st, j).kind() == CellMode.Kind.FLOAT) {
                try {
                    v = String.format("%.6e", Double.parseDouble(v));
                } catch (NumberFormatException e) {
                    // compared as text
                }
            }
            key.append(v == null ? "\u0000NULL" : v).append('\u0001');
        }
        return key.toString();
    }

    static boolean same(CellMode mode, String a, String b) {
        if (a == null || b == null) {
            return a == b;
        }
        if (mode.kind() == CellMode.Kind.FLOAT && !a.equals(b)) {
            try {
                double x = Double.parseDouble(a);
                double y = Double.parseDouble(b);
                return Math.abs(x - y) <= RELATIVE * Math.max(Math.abs(x), Math.abs(y));
            } catch (NumberFormatException e) {
                return false;
            }
        }
        return a.equals(b);
    }

    /** The string's weight under {@code collation} as the oracle computes it (trailing spaces ignored: PAD SPACE). */
    String weight(String collation, String value) throws SQLException {
        String stripped = value.replaceAll(" +$", "");
        String key = collation + "\u0000" + stripped;
        String w = weights.get(key);
        if (w == null) {
            try (PreparedStatement p = oracle.prepareStatement(
                    "SELECT HEX(WEIGHT_STRING(CONVERT(? USING utf8mb4) COLLATE " + collation + "))")) {
                p.setString(1, stripped);
                try (ResultSet rs = p.executeQuery()) {
                    rs.next();
                    w = rs.getString(1);
                }
            }
            weights.put(key, w);
        }
        return w;
    }
}
