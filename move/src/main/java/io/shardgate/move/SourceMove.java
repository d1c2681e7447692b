package io.shardgate.move;

import io.shardgate.move.binlog.BinlogPosition;
import io.shardgate.move.binlog.BinlogSource;
import io.shardgate.move.binlog.BinlogTail;
import io.shardgate.move.binlog.ChangedKeys;
import io.shardgate.move.binlog.PrimaryKeyValues;
import io.shardgate.move.binlog.ReplicaLogin;
import io.shardgate.move.binlog.RowKey;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The data side of a move from one source shard to the target, for the tables that move together:
 * the copy, the binary log catch-up, the verification and the source's write lock at the cutover.
 * The orchestration (phases, progress, holds, the rule switch) is the caller's. Not thread-safe,
 * except that the catch-up runs on the tail's thread with connections of its own.
 */
public final class SourceMove implements AutoCloseable {
    private static final int MAX_QUEUED = 10_000;
    private static final int MAX_BATCH_TRANSACTIONS = 2_000;

    private final ShardEndpoint source;
    private final ShardEndpoint target;
    private final String schema;
    private final Map<String, RowLayout> layouts = new LinkedHashMap<>();
    private final List<Connection> connections = new ArrayList<>();
    private final Connection sourceRead;
    private final Connection targetRead;
    private final Connection targetWrite;
    private Connection lock;
    private BinlogTail tail;
    /** Transactions the tail handed out and the applier has not taken yet (bounded: the tail waits). */
    private final BlockingQueue<ChangedKeys> queue = new LinkedBlockingQueue<>(MAX_QUEUED);

    private Thread applier;
    private volatile boolean closed;
    private volatile Throwable applyFailure;
    private BinlogPosition appliedPosition;

    /**
     * Opens connections to both shards and reads the tables' shapes; each must be the same on both.
     *
     * @param moving each table (as named in the schema) to the rows of it that move
     */
    public SourceMove(ShardEndpoint source, ShardEndpoint target, String schema, Map<String, MovingRows> moving)
            throws SQLException {
        this.source = source;
        this.target = target;
        this.schema = schema;
        boolean ok = false;
        try {
            sourceRead = open(source, false);
            targetRead = open(target, false);
            targetWrite = open(target, true);
            for (Map.Entry<String, MovingRows> e : moving.entrySet()) {
                TableShape onSource = TableShape.load(sourceRead, schema, e.getKey());
                TableShape onTarget;
                try {
                    onTarget = TableShape.load(targetRead, schema, e.getKey());
                } catch (IllegalArgumentException missing) {
                    throw new IllegalArgumentException(schema + "." + e.getKey() + " does not exist on the target "
                            + target + ": create it there with the source's definition (SHOW CREATE TABLE)");
                }
                if (!onSource.equals(onTarget)) {
                    throw new IllegalArgumentException(
                            schema + "." + e.getKey() + " differs between the source " + source + " and the target "
                                    + target + ": give it the same columns and primary key on both");
                }
                PrimaryKeyValues.of(onSource); // refuses, before any copy, a key the catch-up cannot follow
                layouts.put(e.getKey(), new RowLayout(onSource, e.getValue()));
            }
            ok = true;
        } finally {
            if (!ok) {
                close();
            }
        }
    }

    /** Refuses a source whose binary log cannot serve the catch-up; returns where it stands now. */
    public BinlogPosition startPosition() throws SQLException {
        BinlogSource.check(sourceRead);
        return BinlogSource.current(sourceRead);
    }

    /** Where the target's binary log stands now (a whole-table move's reverse stream starts there). */
    public BinlogPosition targetPosition() throws SQLException {
        return BinlogSource.current(targetRead);
    }

    /** Where the source's binary log stands now. */
    public BinlogPosition sourcePosition() throws SQLException {
        return BinlogSource.current(sourceRead);
    }

    /**
     * The unique indexes (the primary key included) of {@code table} on the source that do not hold
     * column {@code column}: a write on one key could collide through them with a row of another key.
     */
    public List<String> uniqueIndexesWithout(String table, String column) throws SQLException {
        List<String> without = new ArrayList<>();
        try (Connection c = source.connect();
                var s = c.prepareStatement("SELECT INDEX_NAME FROM information_schema.STATISTICS"
                        + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND NON_UNIQUE = 0"
                        + " GROUP BY INDEX_NAME HAVING SUM(LOWER(COLUMN_NAME) = LOWER(?)) = 0 ORDER BY INDEX_NAME")) {
            s.setString(1, schema);
            s.setString(2, table);
            s.setString(3, column);
            try (var rs = s.executeQuery()) {
                while (rs.next()) {
                    without.add(rs.getString(1));
                }
            }
        }
        return without;
    }

    /** The tables, in order. */
    public List<String> tables() {
        return List.copyOf(layouts.keySet());
    }

    /** Copies {@code table}'s moving rows after {@code from}, {@code chunkRows} a chunk. */
    public TableCopy.Progress copy(
            String table, TableCopy.Progress from, int chunkRows, TableCopy.ChunkListener listener)
            throws SQLException {
        RowLayout layout = layouts.get(table);
        return new TableCopy(
                        RowReader.committed(sourceRead, layout), new RowWriter(targetWrite, layout), layout, chunkRows)
                .run(from, listener);
    }

    /**
     * Starts following the source's binary log from {@code from}. The tail queues each committed
     * transaction's changed keys; an applier thread of this move takes whatever is queued at once,
     * merges the keys (a row changed a hundred times is read and written once) and refreshes them on
     * the target in batches of {@code batchKeys} (on connections of its own), then {@code applied}
     * hears the position to resume from and how many keys the batch refreshed. Batching is what lets the catch-up keep up with a source
     * that takes many small transactions.
     */
    public void follow(BinlogPosition from, long serverId, int batchKeys, BiConsumer<BinlogPosition, Integer> applied)
            throws SQLException, IOException {
        if (tail != null) {
            throw new IllegalStateException("already following");
        }
        Connection read = open(source, false);
        Connection write = open(target, true);
        Map<TableShape, KeyRefresh> refresh = new LinkedHashMap<>();
        for (RowLayout layout : layouts.values()) {
            refresh.put(
                    layout.shape(),
                    new KeyRefresh(RowReader.committed(read, layout), new RowWriter(write, layout), layout));
        }
        appliedPosition = from;
        applier = new Thread(() -> apply(refresh, batchKeys, applied), "shardgate-move-apply " + source);
        applier.setDaemon(true);
        applier.start();
        tail = BinlogTail.start(
                new ReplicaLogin(source.host(), source.port(), source.user(), source.password(), serverId),
                from,
                refresh.keySet(),
                changed -> {
                    try {
                        queue.put(changed);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted", e);
                    }
                });
    }

    private void apply(
            Map<TableShape, KeyRefresh> refresh, int batchKeys, BiConsumer<BinlogPosition, Integer> applied) {
        List<ChangedKeys> batch = new ArrayList<>();
        try {
            while (!closed) {
                ChangedKeys first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.clear();
                batch.add(first);
                queue.drainTo(batch, MAX_BATCH_TRANSACTIONS);
                int refreshed = 0;
                for (Map.Entry<TableShape, KeyRefresh> e : refresh.entrySet()) {
                    Set<RowKey> keys = new LinkedHashSet<>();
                    for (ChangedKeys changed : batch) {
                        keys.addAll(changed.keys(e.getKey()));
                    }
                    List<Object[]> all = keys.stream().map(RowKey::toArray).toList();
                    refreshed += all.size();
                    for (int i = 0; i < all.size(); i += batchKeys) {
                        e.getValue().refresh(all.subList(i, Math.min(all.size(), i + batchKeys)));
                    }
                }
                BinlogPosition last = batch.get(batch.size() - 1).position();
                applied.accept(last, refreshed);
                synchronized (this) {
                    appliedPosition = last;
                    notifyAll();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (SQLException | RuntimeException e) {
            applyFailure =
                    new IllegalStateException("catch-up on the target " + target + " failed: " + e.getMessage(), e);
            synchronized (this) {
                notifyAll();
            }
        }
    }

    /** The tail following the source (null before {@link #follow}). */
    public BinlogTail tail() {
        return tail;
    }

    /**
     * Bytes of the source's binary log the catch-up has still to apply (see {@link
     * BinlogPosition#bytesBefore}: -1 when the log rotated since the position applied last).
     */
    public long lagBytes() throws SQLException {
        BinlogPosition now = BinlogSource.current(sourceRead);
        BinlogPosition at;
        synchronized (this) {
            at = appliedPosition;
        }
        return at == null ? -1 : at.bytesBefore(now);
    }

    /** Why the catch-up stopped (the tail's failure or the applier's), if it did. */
    public Optional<Throwable> failure() {
        if (applyFailure != null) {
            return Optional.of(applyFailure);
        }
        return tail == null ? Optional.empty() : tail.failure();
    }

    /**
     * Waits until the catch-up has applied everything the source logged up to now; false when it
     * did not within {@code timeout}.
     *
     * @throws IllegalStateException when the catch-up stopped
     */
    public boolean catchUp(Duration timeout) throws SQLException, InterruptedException {
        BinlogPosition target = BinlogSource.current(sourceRead);
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (!appliedPosition.reached(target)) {
                Optional<Throwable> failed = failure();
                if (failed.isPresent()) {
                    throw new IllegalStateException(failed.get().getMessage(), failed.get());
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                wait(Math.max(1, Math.min(50, left / 1_000_000)));
            }
        }
        return true;
    }

    /**
     * Stops the catch-up (the tail and the applier). Before {@link #deleteMoved}: deleting the moved
     * rows on the source must not reach the target through the catch-up.
     */
    public void stopFollowing() {
        closed = true;
        if (tail != null) {
            tail.close();
        }
        if (applier != null) {
            applier.interrupt();
            try {
                applier.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Deletes {@code table}'s moved rows on the source, in primary key order, {@code chunkRows} at a
     * time, on the connection holding {@link #lockSource}'s lock when there is one: after the switch
     * they are stale copies that a statement over every shard (a COUNT(*), a scan) would see twice.
     * Each row by its own statement ({@link RowSql#deleteOne}, a chunk's sent as one batch and
     * committed once), so only the deleted rows are locked: the clients keep writing the rows that
     * stay while this runs, and
     * a chunk's DELETE ... IN (...) planned as a scan took their rows' locks and deadlocked with them
     * (MoveUnderTransactionsIT: InnoDB rolled back the client).
     *
     * @return the rows deleted
     */
    public long deleteMoved(String table, int chunkRows) throws SQLException {
        RowLayout layout = layouts.get(table);
        Connection c = lock != null ? lock : open(source, false);
        RowReader reader = new RowReader(c, layout);
        long deleted = 0;
        Object[] lastKey = null;
        while (true) {
            List<Row> chunk = reader.chunk(lastKey, chunkRows);
            List<Object[]> moved = new ArrayList<>();
            for (Row row : chunk) {
                if (layout.moves(row)) {
                    moved.add(row.primaryKey());
                }
            }
            if (!moved.isEmpty()) {
                deleted += deleteChunk(c, layout, moved);
            }
            if (chunk.size() < chunkRows) {
                return deleted;
            }
            lastKey = chunk.get(chunk.size() - 1).primaryKey();
        }
    }

    /**
     * Deletes the rows with primary keys {@code keys}, one statement each, in one transaction (one
     * commit a chunk, not one a row); returns how many there were. It holds the locks of those rows
     * alone, which no client writes once the switch sent their keys to the target.
     */
    private static long deleteChunk(Connection c, RowLayout layout, List<Object[]> keys) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            long deleted = RowDeletes.byKey(c, layout.shape(), keys);
            c.commit();
            return deleted;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }

    /** How far the catch-up has applied the source's binary log. */
    public synchronized BinlogPosition applied() {
        return appliedPosition;
    }

    /** Compares {@code table}'s moving rows on both shards. */
    public TableDiff.Result diff(String table, int chunkRows) throws SQLException {
        RowLayout layout = layouts.get(table);
        return new TableDiff(new RowReader(sourceRead, layout), new RowReader(targetRead, layout), layout, chunkRows)
                .run();
    }

    /** The keys among {@code keys} whose moving rows of {@code table} still differ ({@link TableDiff#recheck}). */
    public List<Object[]> recheck(String table, List<Object[]> keys, int chunkRows) throws SQLException {
        RowLayout layout = layouts.get(table);
        return new TableDiff(new RowReader(sourceRead, layout), new RowReader(targetRead, layout), layout, chunkRows)
                .recheck(keys);
    }

    /**
     * Takes a write lock on the moving tables on the source ({@code LOCK TABLES ... WRITE}): waits up
     * to {@code timeout} for transactions that touched them to end, then no session writes them
     * until {@link #unlock}; nothing the routers hold, nothing written around them.
     *
     * @throws SQLException (1205 lock wait timeout) when a transaction kept them longer
     */
    public void lockSource(Duration timeout) throws SQLException {
        lock = open(source, false);
        try (Statement s = lock.createStatement()) {
            s.execute("SET SESSION lock_wait_timeout = " + Math.max(1, timeout.toSeconds()));
            List<String> tables = new ArrayList<>();
            for (RowLayout layout : layouts.values()) {
                tables.add(layout.shape().qualifiedName() + " WRITE");
            }
            s.execute("LOCK TABLES " + String.join(", ", tables));
        }
    }

    /** Releases {@link #lockSource}'s lock (also on close). */
    public void unlock() throws SQLException {
        if (lock != null) {
            try (Statement s = lock.createStatement()) {
                s.execute("UNLOCK TABLES");
            } finally {
                lock.close();
                connections.remove(lock);
                lock = null;
            }
        }
    }

    private Connection open(ShardEndpoint endpoint, boolean writing) throws SQLException {
        Connection c = endpoint.connect();
        connections.add(c);
        if (writing) {
            ShardSessions.forWriting(c);
        } else {
            ShardSessions.forLockingReads(c);
        }
        return c;
    }

    @Override
    public void close() {
        stopFollowing();
        for (Connection c : connections) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing: nothing to do
            }
        }
        connections.clear();
    }

    @Override
    public String toString() {
        return schema + " " + layouts.keySet() + " from " + source + " to " + target;
    }
}
