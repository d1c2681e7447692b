package io.shardgate.it.move;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The LATEST DETECTED DEADLOCK section of a server's {@code SHOW ENGINE INNODB STATUS}: the two
 * transactions InnoDB found waiting for each other, their statements and locks, and which it rolled
 * back. Read when a client sees an error, so that a failed IT says which transactions deadlocked.
 */
final class LatestDeadlock {
    private static final String HEADING = "LATEST DETECTED DEADLOCK";

    private LatestDeadlock() {}

    /** The section on the server {@code c} is connected to, or a line saying there is none. */
    static String of(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW ENGINE INNODB STATUS")) {
            return rs.next() ? section(rs.getString("Status")) : "(no InnoDB status)";
        }
    }

    /** The section in {@code status}, without its heading; a line saying so when InnoDB found none. */
    static String section(String status) {
        int heading = status.indexOf(HEADING);
        if (heading < 0) {
            return "(no deadlock since the server started)";
        }
        int from = status.indexOf('\n', status.indexOf('\n', heading) + 1) + 1; // past the heading's dashes
        int to = status.indexOf("\n------------\nTRANSACTIONS", from);
        return status.substring(from, to < 0 ? status.length() : to).strip();
    }
}
