package io.shardgate.move;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;

/**
 * The verify phase for one table: walks the source's moving rows and the target's moving rows in
 * primary key order side by side and compares every column's stored value. Run while the source's
 * writes to the moving rows are held (the cutover) it proves the target holds exactly the rows the
 * new rules send there; run earlier it shows how far the catch-up is.
 */
public final class TableDiff {
    /**
     * The outcome.
     *
     * @param sourceRows moving rows on the source
     * @param targetRows moving rows on the target
     * @param firstDifference the primary key (source side, else target side) where the two first
     *     differ, as text; null when they are equal
     */
    public record Result(long sourceRows, long targetRows, String firstDifference) {
        public boolean equal() {
            return firstDifference == null;
        }
    }

    private final RowReader source;
    private final RowReader target;
    private final RowLayout layout;
    private final int chunkRows;

    public TableDiff(RowReader source, RowReader target, RowLayout layout, int chunkRows) {
        this.source = source;
        this.target = target;
        this.layout = layout;
        this.chunkRows = chunkRows;
    }

    public Result run() throws SQLException {
        MovingCursor s = new MovingCursor(source);
        MovingCursor t = new MovingCursor(target);
        String first = null;
        while (true) {
            Row a = s.next();
            Row b = t.next();
            if (a == null && b == null) {
                break;
            }
            if (first == null && (a == null || b == null || !Arrays.deepEquals(a.values(), b.values()))) {
                first = Arrays.toString((a != null ? a : b).primaryKey());
            }
        }
        return new Result(s.moving, t.moving, first);
    }

    /** The moving rows of one side in primary key order, read a chunk at a time. */
    private final class MovingCursor {
        private final RowReader reader;
        private List<Row> chunk = List.of();
        private int at;
        private Object[] lastKey;
        private boolean end;
        long moving;

        MovingCursor(RowReader reader) {
            this.reader = reader;
        }

        Row next() throws SQLException {
            while (true) {
                if (at == chunk.size()) {
                    if (end) {
                        return null;
                    }
                    chunk = reader.chunk(lastKey, chunkRows);
                    at = 0;
                    end = chunk.size() < chunkRows;
                    if (!chunk.isEmpty()) {
                        lastKey = chunk.get(chunk.size() - 1).primaryKey();
                    }
                    continue;
                }
                Row row = chunk.get(at++);
                if (layout.moves(row)) {
                    moving++;
                    return row;
                }
            }
        }
    }
}
