package io.shardgate.move;

import java.nio.ByteBuffer;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The verify phase for one table: walks the source's moving rows and the target's moving rows in
 * primary key order side by side and compares every column's stored value, collecting the keys
 * where they differ. While the source takes writes, a difference may only be a change the catch-up
 * has not applied yet: {@link #recheck} compares those keys again (after the catch-up moved on), and
 * only a key that keeps differing is a real difference.
 */
public final class TableDiff {
    /** At most this many differing keys are kept; a pass that finds more is run again whole. */
    public static final int MAX_KEYS = 10_000;

    /**
     * The outcome of a pass.
     *
     * @param sourceRows moving rows on the source
     * @param targetRows moving rows on the target
     * @param firstDifference the primary key (source side, else target side) where the two first
     *     differ, as text; null when they are equal
     * @param differingKeys the keys of the rows that differ, from both sides (at most {@link
     *     #MAX_KEYS}; a row missing on one side or misplaced in the walk counts)
     * @param overflow whether more keys differed than were kept
     */
    public record Result(
            long sourceRows, long targetRows, String firstDifference, List<Object[]> differingKeys, boolean overflow) {
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
        Map<Key, Object[]> keys = new HashMap<>();
        boolean overflow = false;
        while (true) {
            Row a = s.next();
            Row b = t.next();
            if (a == null && b == null) {
                break;
            }
            if (a == null || b == null || !Arrays.deepEquals(a.values(), b.values())) {
                if (first == null) {
                    first = Arrays.toString((a != null ? a : b).primaryKey());
                }
                for (Row row : new Row[] {a, b}) {
                    if (row != null && keys.size() < MAX_KEYS) {
                        keys.putIfAbsent(new Key(row.primaryKey()), row.primaryKey());
                    } else if (row != null && !keys.containsKey(new Key(row.primaryKey()))) {
                        overflow = true;
                    }
                }
            }
        }
        return new Result(s.moving, t.moving, first, List.copyOf(keys.values()), overflow);
    }

    /** The keys among {@code keys} whose moving rows still differ between source and target now. */
    public List<Object[]> recheck(List<Object[]> keys) throws SQLException {
        List<Object[]> still = new ArrayList<>();
        for (int from = 0; from < keys.size(); from += chunkRows) {
            List<Object[]> part = keys.subList(from, Math.min(keys.size(), from + chunkRows));
            Map<Key, Row> onSource = moving(source.byKeys(part, false));
            Map<Key, Row> onTarget = moving(target.byKeys(part, false));
            Set<Key> all = new LinkedHashSet<>(onSource.keySet());
            all.addAll(onTarget.keySet());
            for (Key k : all) {
                Row a = onSource.get(k);
                Row b = onTarget.get(k);
                if (a == null || b == null || !Arrays.deepEquals(a.values(), b.values())) {
                    still.add(k.values);
                }
            }
        }
        return still;
    }

    private Map<Key, Row> moving(List<Row> rows) {
        Map<Key, Row> out = new HashMap<>();
        for (Row row : rows) {
            if (layout.moves(row)) {
                out.put(new Key(row.primaryKey()), row);
            }
        }
        return out;
    }

    /** A primary key with value equality (byte arrays by content). */
    private static final class Key {
        final Object[] values;
        private final List<Object> comparable;

        Key(Object[] values) {
            this.values = values;
            List<Object> c = new ArrayList<>(values.length);
            for (Object v : values) {
                c.add(v instanceof byte[] b ? ByteBuffer.wrap(b) : v);
            }
            this.comparable = c;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.comparable.equals(comparable);
        }

        @Override
        public int hashCode() {
            return comparable.hashCode();
        }
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
