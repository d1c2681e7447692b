package io.shardgate.it.differential;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What one server answered to one statement: column labels and type names with the rows as text,
 * or an update count, or an error (code, SQL state, message); {@code lost} when the connection
 * broke or timed out (always a difference); {@code warnings}: how many warnings the client sees
 * ({@code Statement.getWarnings()}: the drivers ask SHOW WARNINGS when the server reported any), or
 * -1 when not asked.
 */
record Answer(
        List<String> columns,
        List<List<String>> rows,
        long updateCount,
        int errorCode,
        String sqlState,
        String error,
        boolean lost,
        int warnings) {

    static final int NOT_SUPPORTED_YET = 1235;

    boolean failed() {
        return error != null;
    }

    boolean refusal() {
        return failed() && errorCode == NOT_SUPPORTED_YET;
    }

    boolean resultSet() {
        return !failed() && updateCount < 0;
    }

    /**
     * Runs {@code st} as text ({@code prepared} false) or as a server-side prepared statement;
     * {@code warnings}: also count the warnings (not for statements inside a session sequence, as
     * SHOW WARNINGS resets ROW_COUNT()).
     */
    static Answer run(Connection c, GeneratedStatement st, boolean prepared, boolean warnings) {
        try {
            if (prepared) {
                try (PreparedStatement p = c.prepareStatement(st.sql().text())) {
                    for (int i = 0; i < st.sql().params().size(); i++) {
                        Literal.bind(p, i + 1, st.sql().params().get(i));
                    }
                    Answer a = p.execute() ? read(p.getResultSet()) : updated(p.getLargeUpdateCount());
                    return warnings ? a.withWarnings(count(p.getWarnings())) : a;
                }
            }
            try (Statement s = c.createStatement()) {
                Answer a = s.execute(st.literal()) ? read(s.getResultSet()) : updated(s.getLargeUpdateCount());
                return warnings ? a.withWarnings(count(s.getWarnings())) : a;
            }
        } catch (SQLException e) {
            return failure(c, e);
        }
    }

    /** Runs plain SQL text (session statements). */
    static Answer run(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            return s.execute(sql) ? read(s.getResultSet()) : updated(s.getLargeUpdateCount());
        } catch (SQLException e) {
            return failure(c, e);
        }
    }

    private Answer withWarnings(int n) {
        return new Answer(columns, rows, updateCount, errorCode, sqlState, error, lost, n);
    }

    private static int count(java.sql.SQLWarning w) {
        int n = 0;
        for (; w != null; w = w.getNextWarning()) {
            n++;
        }
        return n;
    }

    private static Answer failure(Connection c, SQLException e) {
        boolean lost = e.getSQLState() != null && e.getSQLState().startsWith("08");
        try {
            lost |= c.isClosed() || !c.isValid(5);
        } catch (SQLException ignored) {
            lost = true;
        }
        String message = String.valueOf(e.getMessage());
        if (lost) {
            message = e.getClass().getSimpleName() + ": " + message;
        }
        return new Answer(List.of(), List.of(), -1, e.getErrorCode(), e.getSQLState(), message, lost, -1);
    }

    private static Answer updated(long count) {
        return new Answer(List.of(), List.of(), count, 0, null, null, false, -1);
    }

    private static Answer read(ResultSet rs) throws SQLException {
        try (rs) {
            ResultSetMetaData md = rs.getMetaData();
            List<String> columns = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                columns.add(md.getColumnLabel(i) + ":" + md.getColumnTypeName(i));
            }
            List<List<String>> rows = new ArrayList<>();
            while (rs.next()) {
                List<String> row = new ArrayList<>(columns.size());
                for (int i = 1; i <= columns.size(); i++) {
                    row.add(rs.getString(i));
                }
                rows.add(row);
            }
            return new Answer(columns, rows, -1, 0, null, null, false, -1);
        }
    }

    @Override
    public String toString() {
        if (failed()) {
            return (lost ? "CONNECTION LOST " : "") + "ERROR " + errorCode + " (" + sqlState + "): " + error;
        }
        String w = warnings > 0 ? ", " + warnings + " warnings" : "";
        if (updateCount >= 0) {
            return "OK, " + updateCount + " rows affected" + w;
        }
        StringBuilder out = new StringBuilder(columns + ", " + rows.size() + " rows" + w);
        int shown = Math.min(rows.size(), 25);
        for (int i = 0; i < shown; i++) {
            out.append("\n      ").append(rows.get(i));
        }
        if (shown < rows.size()) {
            out.append("\n      ...");
        }
        return out.toString();
    }
}
