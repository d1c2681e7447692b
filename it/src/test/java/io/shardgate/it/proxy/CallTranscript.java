package io.shardgate.it.proxy;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything a JDBC client observes of one statement that may return several results, as lines of
 * text: the rows of each result set (then {@code --}), each update count ({@code #n}), OUT
 * parameters ({@code out n=v}) and an error ({@code ERR code state message}). Two transcripts of the
 * same statement, one through the router and one directly on MariaDB, must be equal.
 */
final class CallTranscript {

    private CallTranscript() {}

    /** Runs {@code sql} with a plain {@code Statement} (COM_QUERY). */
    static List<String> ofStatement(Connection c, String sql) {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            try {
                results(s, s.execute(sql), out);
            } catch (SQLException e) {
                out.add(error(e));
            }
        } catch (SQLException e) {
            out.add("close: " + error(e));
        }
        return out;
    }

    /**
     * Runs {@code call} (e.g. {@code {CALL p(?, ?)}}) as a {@code CallableStatement}. Each parameter
     * is {@code in:V}, {@code inout:V} (an INTEGER) or {@code out} (an OUT INTEGER); OUT and INOUT
     * values are read after the results.
     */
    static List<String> ofCall(Connection c, String call, String... parameters) {
        List<String> out = new ArrayList<>();
        try (CallableStatement s = c.prepareCall(call)) {
            for (int i = 0; i < parameters.length; i++) {
                String p = parameters[i];
                if (p.startsWith("in:") || p.startsWith("inout:")) {
                    s.setInt(i + 1, Integer.parseInt(p.substring(p.indexOf(':') + 1)));
                }
                if (p.equals("out") || p.startsWith("inout:")) {
                    s.registerOutParameter(i + 1, Types.INTEGER);
                }
            }
            try {
                results(s, s.execute(), out);
                for (int i = 0; i < parameters.length; i++) {
                    if (!parameters[i].startsWith("in:")) {
                        out.add("out " + (i + 1) + "=" + s.getString(i + 1));
                    }
                }
            } catch (SQLException e) {
                out.add(error(e));
            }
        } catch (SQLException e) {
            out.add("prepare/close: " + error(e));
        }
        return out;
    }

    /** Runs {@code sql} as a {@code PreparedStatement} (COM_STMT_EXECUTE when prepared on the server). */
    static List<String> ofPrepared(Connection c, String sql, Object... parameters) {
        List<String> out = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            try {
                results(s, s.execute(), out);
            } catch (SQLException e) {
                out.add(error(e));
            }
        } catch (SQLException e) {
            out.add("prepare/close: " + error(e));
        }
        return out;
    }

    private static void results(Statement s, boolean isResult, List<String> out) throws SQLException {
        boolean result = isResult;
        while (true) {
            if (result) {
                try (ResultSet rs = s.getResultSet()) {
                    int columns = rs.getMetaData().getColumnCount();
                    StringBuilder names = new StringBuilder("columns:");
                    for (int i = 1; i <= columns; i++) {
                        names.append(' ').append(rs.getMetaData().getColumnLabel(i));
                    }
                    out.add(names.toString());
                    while (rs.next()) {
                        StringBuilder row = new StringBuilder();
                        for (int i = 1; i <= columns; i++) {
                            row.append(i > 1 ? "|" : "").append(rs.getString(i));
                        }
                        out.add(row.toString());
                    }
                }
                out.add("--");
            } else {
                int count = s.getUpdateCount();
                if (count == -1) {
                    return;
                }
                out.add("#" + count);
            }
            result = s.getMoreResults();
        }
    }

    private static String error(SQLException e) {
        // MariaDB Connector/J prefixes the connection id the server announced: the router's session
        // id through Shardgate, the server's own directly
        String message = e.getMessage().replaceFirst("^\\(conn=\\d+\\) ", "");
        return "ERR " + e.getErrorCode() + " " + e.getSQLState() + " " + message;
    }
}
