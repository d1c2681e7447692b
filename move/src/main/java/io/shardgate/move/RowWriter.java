package io.shardgate.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes moving rows on the target shard, one transaction per call, on a session set up by {@link
 * ShardSessions#forWriting}. The copy and the catch-up share it: given the primary keys that changed
 * and the moving rows the source holds for them now, the target ends up holding exactly those
 * (idempotent: running a call twice leaves the same rows). Target rows with those keys that do not
 * move (rows the target owns under the running rules) are never touched; a moving row that collides
 * with one fails the write with the server's duplicate-key error.
 *
 * <p>The target may serve clients on rows of its own (buckets it owns) between the moving keys, so
 * every statement names each key on its own and locks only the rows of the keys it names: the read
 * of the target's rows ({@link RowReader#byKeys} with FOR UPDATE, one SELECT a key) and the delete
 * of the stale ones ({@link RowDeletes}); the INSERT locks the rows it adds. A {@code WHERE id IN
 * (...)} was planned by MariaDB as a scan of the whole table when the list was long for the table's
 * size (500 keys on a target of 1,500 rows), which under REPEATABLE READ locks every row it passes:
 * the mover waited for rows clients held and could deadlock with them.
 */
public final class RowWriter {
    /** Bound on one INSERT's values, well under the servers' default max_allowed_packet (16 MiB). */
    static final int MAX_INSERT_BYTES = 4 << 20;

    private final Connection connection;
    private final RowLayout layout;
    private final RowReader target;

    public RowWriter(Connection connection, RowLayout layout) {
        this.connection = connection;
        this.layout = layout;
        this.target = new RowReader(connection, layout);
    }

    /**
     * Makes the target's moving rows with primary keys {@code keys} equal {@code movingRows} (the
     * source's moving rows among them; each row's key must be one of {@code keys}).
     *
     * @return the number of rows deleted and inserted
     */
    public int apply(List<Object[]> keys, List<Row> movingRows) throws SQLException {
        try {
            List<Object[]> stale = new ArrayList<>();
            for (Row row : target.byKeys(keys, true)) {
                if (layout.moves(row)) {
                    stale.add(row.primaryKey());
                }
            }
            long deleted = RowDeletes.byKey(connection, layout.shape(), stale);
            insert(movingRows);
            connection.commit();
            return Math.toIntExact(deleted + movingRows.size());
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        }
    }

    private void insert(List<Row> rows) throws SQLException {
        int from = 0;
        while (from < rows.size()) {
            int to = from;
            long bytes = 0;
            while (to < rows.size() && (to == from || bytes + size(rows.get(to)) <= MAX_INSERT_BYTES)) {
                bytes += size(rows.get(to));
                to++;
            }
            List<Row> batch = rows.subList(from, to);
            try (PreparedStatement s = connection.prepareStatement(RowSql.insert(layout, batch.size()))) {
                int p = 1;
                for (Row row : batch) {
                    for (int column : layout.writtenColumns()) {
                        s.setObject(p++, layout.writeValue(column, row.values()[column]));
                    }
                }
                s.executeUpdate();
            }
            from = to;
        }
    }

    private static long size(Row row) {
        long n = 16;
        for (byte[] v : row.values()) {
            n += v == null ? 4 : v.length + 8;
        }
        return n;
    }
}
