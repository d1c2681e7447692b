package io.shardgate.move;

import io.shardgate.move.binlog.BinlogSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What a whole-table move asks of its target before it starts: a row-based binary log (after the
 * switch the reverse stream follows it back to the source, so that the move can be undone) and the
 * table created there and empty (no rule routes to the target's copy until the switch; rows found
 * there would surface after it).
 */
public final class TableMoveTarget {
    private TableMoveTarget() {}

    /**
     * @throws IllegalArgumentException naming what is missing on hostgroup {@code hostgroup}
     */
    public static void check(ShardEndpoint target, int hostgroup, String schema, String table) throws SQLException {
        try (Connection c = target.connect()) {
            try {
                BinlogSource.check(
                        c,
                        "the target's (hostgroup " + hostgroup + ", followed back to the source by"
                                + " the reverse stream)");
            } catch (IllegalStateException e) {
                throw new IllegalArgumentException(e.getMessage());
            }
            String name = TableShape.quote(schema) + "." + TableShape.quote(table);
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT 1 FROM " + name + " LIMIT 1")) {
                if (rs.next()) {
                    throw new IllegalArgumentException(schema + "." + table + " holds rows on the target hostgroup "
                            + hostgroup + ": a whole-table move copies into an empty table (delete them first)");
                }
            } catch (SQLException e) {
                if (e.getErrorCode() == 1146 || e.getErrorCode() == 1049) {
                    throw new IllegalArgumentException(schema + "." + table + " does not exist on the target hostgroup "
                            + hostgroup + ": create it there with the source's definition (SHOW CREATE TABLE)");
                }
                throw e;
            }
        }
    }
}
