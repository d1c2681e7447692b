package io.shardgate.merge;

import io.netty.buffer.ByteBuf;

/** A row of the merged result: a shard's row as it came, or a group combining several. */
interface MergedRow {
    /** Whether the cell is NULL. */
    boolean isNull(int column);

    /** The Java value of a cell (see io.shardgate.protocol.row), null for NULL. */
    Object value(int column);

    /** Whether the merge computed the cell (it is then encoded from {@link #value}), else it is copied. */
    boolean computed(int column);

    /** Copies a non-NULL, not computed cell's bytes as the server encoded them. */
    void copyCell(ByteBuf out, int column);

    /**
     * The shard row whose cell {@code column} is (MIN's or MAX's winner in a group), so the hidden
     * columns that row sent about it (its collation weights) can be read; null when there is none.
     */
    default MergedRow source(int column) {
        return this;
    }
}
