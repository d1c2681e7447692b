package io.shardgate.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Reads rows of one table on one shard, on a session set up by {@link ShardSessions#forReading}. */
public final class RowReader {
    private final Connection connection;
    private final RowLayout layout;

    public RowReader(Connection connection, RowLayout layout) {
        this.connection = connection;
        this.layout = layout;
    }

    /** Up to {@code limit} rows in primary key order after {@code lastKey} (null: from the first). */
    public List<Row> chunk(Object[] lastKey, int limit) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(RowSql.chunk(layout, lastKey != null, limit))) {
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
        String sql = RowSql.byKeys(layout, keys.size()) + (forUpdate ? " FOR UPDATE" : "");
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
