package io.shardgate.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads rows of one table on one shard, on a session set up by {@link ShardSessions#forReading}.
 *
 * <p>A source's rows are read with shared locks ({@link #committed}): MariaDB writes a transaction to
 * the binary log (and sends it to the catch-up) before its changes are visible in InnoDB, so a plain
 * read may not yet see a row the log already announced, and the catch-up would then take it for
 * deleted. A locking read waits for the writing transaction's row locks and reads what it committed;
 * the same holds for the copy, whose start position may be ahead of commits still becoming visible.
 */
public final class RowReader {
    private final Connection connection;
    private final RowLayout layout;
    private final String lock;

    /** Plain (consistent, non-locking) reads. */
    public RowReader(Connection connection, RowLayout layout) {
        this(connection, layout, "");
    }

    private RowReader(Connection connection, RowLayout layout, String lock) {
        this.connection = connection;
        this.layout = layout;
        this.lock = lock;
    }

    /** Reads that wait for uncommitted changes to the rows they read and see them committed (see above). */
    public static RowReader committed(Connection connection, RowLayout layout) {
        return new RowReader(connection, layout, " LOCK IN SHARE MODE");
    }

    /** Up to {@code limit} rows in primary key order after {@code lastKey} (null: from the first). */
    public List<Row> chunk(Object[] lastKey, int limit) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(RowSql.chunk(layout, lastKey != null, limit) + lock)) {
            if (lastKey != null) {
                bind(s, RowSql.afterParameters(lastKey));
            }
            return rows(s);
        }
    }

    /** The rows with the primary keys {@code keys} (those that exist), in no particular order. */
    public List<Row> byKeys(List<Object[]> keys, boolean forUpdate) throws SQLException {
        if (keys.isEmpty()) {
            return List.of();
        }
        String sql = RowSql.byKeys(layout, keys.size()) + (forUpdate ? " FOR UPDATE" : lock);
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            bind(s, RowSql.keyParameters(keys));
            return rows(s);
        }
    }

    private List<Row> rows(PreparedStatement s) throws SQLException {
        List<Row> rows = new ArrayList<>();
        int width = layout.width();
        try (ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                byte[][] items = new byte[width][];
                for (int i = 0; i < width; i++) {
                    items[i] = rs.getBytes(i + 1);
                }
                rows.add(layout.row(items));
            }
        }
        return rows;
    }

    static void bind(PreparedStatement s, List<Object> parameters) throws SQLException {
        for (int i = 0; i < parameters.size(); i++) {
            s.setObject(i + 1, parameters.get(i));
        }
    }
}
