package io.shardgate.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Deletes rows by primary key on a server that serves clients, locking those rows alone: one {@link
 * RowSql#deleteOne} a key (a unique search), sent as one JDBC batch in the caller's transaction. A
 * {@code DELETE ... WHERE id IN (...)} may be planned as a scan of the table, and a locking scan
 * under REPEATABLE READ locks every row it passes, rows that clients write included: it waits for
 * them and deadlocks with their transactions.
 */
final class RowDeletes {
    private RowDeletes() {}

    /** Deletes the rows with primary keys {@code keys} (those that exist); returns how many there were. */
    static long byKey(Connection c, TableShape shape, List<Object[]> keys) throws SQLException {
        if (keys.isEmpty()) {
            return 0;
        }
        try (PreparedStatement s = c.prepareStatement(RowSql.deleteOne(shape))) {
            for (Object[] key : keys) {
                RowReader.bind(s, RowSql.keyParameters(List.<Object[]>of(key)));
                s.addBatch();
            }
            long deleted = 0;
            for (int n : s.executeBatch()) {
                if (n < 0) { // a driver's bulk mode would not tell: the count must stay exact
                    throw new SQLException("no row count for a batched DELETE (" + n + ")");
                }
                deleted += n;
            }
            return deleted;
        }
    }
}
