package io.shardgate.move;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The catch-up's step: rows changed on the source (their primary keys, from the binary log) are read
 * again from the source and written on the target as they are now. Taking only keys from the log
 * and the values from the table keeps every column type exact (the copy's reader and writer do the
 * values) and makes replaying a change twice harmless; the target converges to the source once the
 * source's writes stop (the cutover holds them).
 */
public final class KeyRefresh {
    private final RowReader source;
    private final RowWriter target;
    private final RowLayout layout;

    public KeyRefresh(RowReader source, RowWriter target, RowLayout layout) {
        this.source = source;
        this.target = target;
        this.layout = layout;
    }

    /** Brings the target's rows with primary keys {@code keys} in line with the source; returns the rows written. */
    public int refresh(List<Object[]> keys) throws SQLException {
        if (keys.isEmpty()) {
            return 0;
        }
        return LockWaits.retried(() -> {
            List<Row> moving = new ArrayList<>();
            for (Row row : source.byKeysWithoutDeadlocks(keys)) {
                if (layout.moves(row)) {
                    moving.add(row);
                }
            }
            return target.apply(keys, moving);
        });
    }
}
