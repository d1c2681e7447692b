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
 * broke or timed out (always a difference).
 */
record Answer(
        List<String> columns,
        List<List<String>> rows,
        long updateCount,
        int errorCode,
        String sqlState,
        String error,
        boolean lost) {

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

    /** Runs {@code st} as text ({@code prepared} false) or as a server-side prepared statement. */
    static Answer run(Connection c, GeneratedStatement st, boolean prepared) {
        try {
            if (prepared) {
                try (PreparedStatement p = c.prepareStatement(st.sql().text())) {
                    for (int i = 0; i < st.sql().params().size(); i++) {
                        Literal.bind(p, i + 1, st.sql().params().get(i));
                    }
                    return p.execute() ? read(p.getResultSet()) : updated(p.getLargeUpdateCount());
                }
            }
            try (Statement s = c.createStatement()) {
                return s.execute(st.literal()) ? read(s.getResultSet()) : updated(s.getLargeUpdateCount());
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
        return new Answer(List.of(), List.of(), -1, e.getErrorCode(), e.getSQLState(), message, lost);
    }

    private static Answer updated(long count) {
        return new Answer(List.of(), List.of(), count, 0, null, null, false);
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
            return new Answer(columns, rows, -1, 0, null, null, false);
        }
    }

    @Override
    public String toString() {
        if (failed()) {
            return (lost ? "CONNECTION LOST " : "") + "ERROR " + errorCode + " (" + sqlState + "): " + error;
        }
        if (updateCount >= 0) {
            return "OK, " + updateCount + " rows affected";
        }
        StringBuilder out = new StringBuilder(columns + ", " + rows.size() + " rows");
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
