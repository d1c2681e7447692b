package io.shardgate.move;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The copy phase for one table: reads the source in primary key order, chunk by chunk (each a fresh
 * read, no long snapshot to hold undo), and writes the moving rows of each chunk on the target. The
 * rows change while it runs; the catch-up that follows replays every change made after the binary
 * log position taken before the copy started, so the target converges. Resumable: a copy started
 * again from the last {@link Progress} it reported continues after that chunk.
 */
public final class TableCopy {
    /**
     * Where a copy stands.
     *
     * @param lastKey the primary key of the last row read (null: nothing read yet)
     * @param rowsRead rows of the source read so far
     * @param rowsCopied moving rows written so far
     * @param done whether the last chunk was read
     */
    public record Progress(Object[] lastKey, long rowsRead, long rowsCopied, boolean done) {
        public static final Progress START = new Progress(null, 0, 0, false);
    }

    /** Told after each chunk is committed on the target; may throw to stop the copy (a cancel). */
    @FunctionalInterface
    public interface ChunkListener {
        void copied(Progress progress) throws SQLException;
    }

    private final RowReader source;
    private final RowWriter target;
    private final RowLayout layout;
    private final int chunkRows;

    public TableCopy(RowReader source, RowWriter target, RowLayout layout, int chunkRows) {
        if (chunkRows < 1) {
            throw new IllegalArgumentException("chunk of " + chunkRows + " rows");
        }
        this.source = source;
        this.target = target;
        this.layout = layout;
        this.chunkRows = chunkRows;
    }

    /** Copies every chunk after {@code from}; returns the final progress ({@code done}). */
    public Progress run(Progress from, ChunkListener listener) throws SQLException {
        Progress progress = from;
        while (!progress.done()) {
            Object[] after = progress.lastKey();
            List<Row> read = source.chunkNoWait(after, chunkRows);
            int asked = chunkRows;
            if (read == null) { // a client holds one of its rows: wait for the next row alone, then go on
                asked = 1;
                read = LockWaits.retried(() -> source.chunk(after, 1));
            }
            List<Row> chunk = read;
            List<Row> moving = new ArrayList<>();
            for (Row row : chunk) {
                if (layout.moves(row)) {
                    moving.add(row);
                }
            }
            if (!moving.isEmpty()) {
                LockWaits.retried(
                        () -> target.apply(moving.stream().map(Row::primaryKey).toList(), moving));
            }
            Object[] lastKey = chunk.isEmpty()
                    ? progress.lastKey()
                    : chunk.get(chunk.size() - 1).primaryKey();
            progress = new Progress(
                    lastKey,
                    progress.rowsRead() + chunk.size(),
                    progress.rowsCopied() + moving.size(),
                    chunk.size() < asked);
            listener.copied(progress);
        }
        return progress;
    }
}
