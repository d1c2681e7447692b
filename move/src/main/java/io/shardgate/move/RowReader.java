package io.shardgate.move;

import io.shardgate.move.binlog.RowKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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
    /** Bounds one locking read's statement (its text and its parameters). */
    static final int LOCKED_KEYS_PER_STATEMENT = 500;

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
        return chunk(lastKey, limit, lock);
    }

    /**
     * As {@link #chunk}, but a locking reader gives up at once (null) when one of the rows is locked
     * by a client: it never waits while holding the shared locks of the rows it read before, so it
     * cannot take part in a deadlock, whose victim InnoDB chooses by weight: a client's short
     * transaction rather than the mover's read of a thousand rows.
     */
    public List<Row> chunkNoWait(Object[] lastKey, int limit) throws SQLException {
        if (lock.isEmpty()) {
            return chunk(lastKey, limit);
        }
        try {
            return chunk(lastKey, limit, lock + " NOWAIT");
        } catch (SQLException e) {
            if (LockWaits.lockedNow(e)) {
                return null;
            }
            throw e;
        }
    }

    private List<Row> chunk(Object[] lastKey, int limit, String suffix) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(RowSql.chunk(layout, lastKey != null, limit) + suffix)) {
            if (lastKey != null) {
                bind(s, RowSql.afterParameters(lastKey));
            }
            return rows(s);
        }
    }

    /** The rows with the primary keys {@code keys} (those that exist), in no particular order. */
    public List<Row> byKeys(List<Object[]> keys, boolean forUpdate) throws SQLException {
        return byKeys(keys, forUpdate ? " FOR UPDATE" : lock);
    }

    /**
     * The rows with the primary keys {@code keys}, read as by {@link #byKeys} but, by a locking
     * reader, each key on its own when one of them is locked by a client: a read then waits for one
     * row's lock holding no other (see {@link #chunkNoWait}).
     */
    public List<Row> byKeysWithoutDeadlocks(List<Object[]> keys) throws SQLException {
        if (lock.isEmpty() || keys.size() == 1) {
            return LockWaits.retried(() -> byKeys(keys, lock));
        }
        try {
            return byKeys(keys, lock + " NOWAIT");
        } catch (SQLException e) {
            if (!LockWaits.lockedNow(e)) {
                throw e;
            }
        }
        List<Row> rows = new ArrayList<>(keys.size());
        for (Object[] key : keys) {
            rows.addAll(LockWaits.retried(() -> byKeys(List.<Object[]>of(key), lock)));
        }
        return rows;
    }

    private List<Row> byKeys(List<Object[]> keys, String suffix) throws SQLException {
        if (keys.isEmpty()) {
            return List.of();
        }
        if (!suffix.isEmpty()) {
            return lockingByKeys(keys, suffix);
        }
        try (PreparedStatement s = connection.prepareStatement(RowSql.byKeys(layout, keys.size()))) {
            bind(s, RowSql.keyParameters(keys));
            return rows(s);
        }
    }

    /**
     * A locking read names each key on its own ({@link RowSql#lockingByKeys}), so it locks only the
     * rows of those keys, {@value #LOCKED_KEYS_PER_STATEMENT} keys a statement; each key once (a key
     * named twice would read its row twice).
     */
    private List<Row> lockingByKeys(List<Object[]> keys, String lock) throws SQLException {
        Set<RowKey> seen = new HashSet<>();
        List<Object[]> distinct = new ArrayList<>(keys.size());
        for (Object[] key : keys) {
            if (seen.add(RowKey.of(key))) {
                distinct.add(key);
            }
        }
        List<Row> rows = new ArrayList<>(distinct.size());
        for (int from = 0; from < distinct.size(); from += LOCKED_KEYS_PER_STATEMENT) {
            List<Object[]> part = distinct.subList(from, Math.min(distinct.size(), from + LOCKED_KEYS_PER_STATEMENT));
            try (PreparedStatement s = connection.prepareStatement(RowSql.lockingByKeys(layout, part.size(), lock))) {
                bind(s, RowSql.keyParameters(part));
                rows.addAll(rows(s));
            }
        }
        return rows;
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
