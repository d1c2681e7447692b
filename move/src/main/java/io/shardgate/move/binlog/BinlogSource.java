package io.shardgate.move.binlog;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * The source shard's binary log as a move needs it, read over JDBC: whether the server writes one a
 * move can follow, and where it ends now (the catch-up's target at cutover).
 */
public final class BinlogSource {

    private BinlogSource() {}

    /**
     * Refuses a server whose binary log cannot serve a move: the log must be on ({@code log_bin}),
     * written in rows ({@code binlog_format=ROW}, since a statement does not say which rows it
     * changed), with full row images ({@code binlog_row_image=FULL}, so every update and delete
     * carries the primary key in both images) and neither compressed events (MariaDB {@code
     * log_bin_compress}) nor compressed transactions (MySQL {@code binlog_transaction_compression}),
     * which the tail does not read.
     *
     * @throws IllegalStateException naming the variable, its value and the value a move needs
     */
    public static void check(Connection connection) throws SQLException {
        check(connection, "the source's");
    }

    /**
     * {@link #check(Connection)} for a server in another part: {@code whose} names it in the refusal
     * ("the source's", "the target's").
     */
    public static void check(Connection connection, String whose) throws SQLException {
        String logBin = variable(connection, "log_bin");
        if (!"1".equals(logBin) && !"ON".equalsIgnoreCase(logBin)) {
            throw refusal(whose, "log_bin", logBin, "ON (start the server with --log-bin)");
        }
        String format = variable(connection, "binlog_format");
        if (!"ROW".equalsIgnoreCase(format)) {
            throw refusal(
                    whose, "binlog_format", format, "ROW (SET GLOBAL binlog_format = 'ROW' or --binlog-format=ROW)");
        }
        String image = variable(connection, "binlog_row_image");
        if (image != null && !"FULL".equalsIgnoreCase(image)) {
            throw refusal(
                    whose,
                    "binlog_row_image",
                    image,
                    "FULL (SET GLOBAL binlog_row_image = 'FULL' or --binlog-row-image=FULL): with another image an"
                            + " update need not carry the primary key in both images");
        }
        String compress = variable(connection, "log_bin_compress");
        if (compress != null && !"0".equals(compress) && !"OFF".equalsIgnoreCase(compress)) {
            throw refusal(
                    whose, "log_bin_compress", compress, "OFF: the move does not read compressed binary log events");
        }
        String transactionCompression = variable(connection, "binlog_transaction_compression");
        if (transactionCompression != null
                && !"0".equals(transactionCompression)
                && !"OFF".equalsIgnoreCase(transactionCompression)) {
            throw refusal(
                    whose,
                    "binlog_transaction_compression",
                    transactionCompression,
                    "OFF: the move does not read compressed transactions");
        }
    }

    /**
     * Where the server's binary log ends now: {@code SHOW MASTER STATUS}, or {@code SHOW BINARY LOG
     * STATUS} on servers that dropped the older name (MySQL 8.4).
     */
    public static BinlogPosition current(Connection connection) throws SQLException {
        try {
            return status(connection, "SHOW MASTER STATUS");
        } catch (SQLException masterStatusFailed) {
            try {
                return status(connection, "SHOW BINARY LOG STATUS");
            } catch (SQLException e) {
                e.addSuppressed(masterStatusFailed);
                throw e;
            }
        }
    }

    private static BinlogPosition status(Connection connection, String sql) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                throw new IllegalStateException(
                        "the server writes no binary log (" + sql + " returned no row): start it with --log-bin");
            }
            return new BinlogPosition(rs.getString(1), rs.getLong(2));
        }
    }

    /** The global value of {@code name}, or null when the server has no such variable. */
    private static String variable(Connection connection, String name) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL VARIABLES LIKE '" + name.replace("_", "\\_") + "'")) {
            return rs.next() ? rs.getString(2) : null;
        }
    }

    private static IllegalStateException refusal(String whose, String variable, String value, String needed) {
        return new IllegalStateException(whose + " binary log cannot serve a move: " + variable + " is "
                + (value == null ? "not set" : value.toUpperCase(Locale.ROOT)) + ", a move needs " + needed);
    }
}
