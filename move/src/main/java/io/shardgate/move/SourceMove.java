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
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The data side of a move from one source shard to the target, for the tables that move together:
 * the copy, the binary log catch-up, the verification and the source's write lock at the cutover.
 * The orchestration (phases, progress, holds, the rule switch) is the caller's. Not thread-safe,
 * except that the catch-up runs on the tail's thread with connections of its own.
 */
public final class SourceMove implements AutoCloseable {
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

    /** Where the source's binary log stands now. */
    public BinlogPosition sourcePosition() throws SQLException {
        return BinlogSource.current(sourceRead);
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
        return new TableCopy(new RowReader(sourceRead, layout), new RowWriter(targetWrite, layout), layout, chunkRows)
                .run(from, listener);
    }

    /**
     * Starts following the source's binary log from {@code from}: every committed transaction's
     * changed keys are refreshed on the target (on the tail's thread, on connections of its own),
     * then {@code applied} hears the position to resume from.
     */
    public void follow(BinlogPosition from, long serverId, Consumer<BinlogPosition> applied)
            throws SQLException, IOException {
        if (tail != null) {
            throw new IllegalStateException("already following");
        }
        Connection read = open(source, false);
        Connection write = open(target, true);
        Map<TableShape, KeyRefresh> refresh = new LinkedHashMap<>();
        for (RowLayout layout : layouts.values()) {
            refresh.put(
                    layout.shape(), new KeyRefresh(new RowReader(read, layout), new RowWriter(write, layout), layout));
        }
        tail = BinlogTail.start(
                new ReplicaLogin(source.host(), source.port(), source.user(), source.password(), serverId),
                from,
                refresh.keySet(),
                (ChangedKeys changed) -> {
                    for (Map.Entry<TableShape, KeyRefresh> e : refresh.entrySet()) {
                        List<RowKey> keys = changed.keys(e.getKey());
                        if (!keys.isEmpty()) {
                            try {
                                e.getValue()
                                        .refresh(keys.stream()
                                                .map(RowKey::toArray)
                                                .toList());
                            } catch (SQLException failure) {
                                throw new IllegalStateException(
                                        "catch-up of " + e.getKey().qualifiedName() + " on the target " + target
                                                + " failed: " + failure.getMessage(),
                                        failure);
                            }
                        }
                    }
                    applied.accept(changed.position());
                });
    }

    /** The tail following the source (null before {@link #follow}). */
    public BinlogTail tail() {
        return tail;
    }

    /**
     * Waits until the catch-up has applied everything the source logged up to now; false when it
     * did not within {@code timeout} (or the tail failed: see {@link BinlogTail#failure()}).
     */
    public boolean catchUp(Duration timeout) throws SQLException, InterruptedException {
        return tail.awaitPosition(BinlogSource.current(sourceRead), timeout);
    }

    /** Compares {@code table}'s moving rows on both shards. */
    public TableDiff.Result diff(String table, int chunkRows) throws SQLException {
        RowLayout layout = layouts.get(table);
        return new TableDiff(new RowReader(sourceRead, layout), new RowReader(targetRead, layout), layout, chunkRows)
                .run();
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
            ShardSessions.forReading(c);
        }
        return c;
    }

    @Override
    public void close() {
        if (tail != null) {
            tail.close();
        }
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
