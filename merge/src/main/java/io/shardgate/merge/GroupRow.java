package io.shardgate.merge;

import io.netty.buffer.ByteBuf;

/**
 * One group of a GROUP BY or of an aggregate query without one: the first shard row seen for the
 * group supplies the grouped cells (of strings equal under the collation, MySQL returns one: this
 * is the first), and one {@link Aggregator} per aggregate column combines the shards' partials.
 */
final class GroupRow implements MergedRow {
    private final ShardRow first;
    /** By shard column; null where the column is not an aggregate. */
    private final Aggregator[] aggregators;
    /** By shard column: items over aggregates computed from this group's merged values, else null. */
    private final ComputedColumn[] computed;

    /**
     * {@code first} is kept (pass a {@link ShardRow#detached} row when the shard's buffer goes away);
     * it may be null only for the one group of an aggregate query over no rows. */
    GroupRow(ShardRow first, Aggregator[] aggregators, ComputedColumn[] computed) {
        this.first = first;
        this.aggregators = aggregators;
        this.computed = computed;
    }

    /** Adds a shard row of this group; returns the bytes the group holds more than before. */
    long add(ShardRow row) {
        long grown = 0;
        for (Aggregator a : aggregators) {
            if (a != null) {
                grown += a.add(row);
            }
        }
        return grown;
    }

    /** Combines the same group of a later shard into this one; {@code other} is not used after. */
    void absorb(GroupRow other) {
        for (int i = 0; i < aggregators.length; i++) {
            if (aggregators[i] != null) {
                aggregators[i].absorb(other.aggregators[i]);
            }
        }
    }

    @Override
    public boolean isNull(int column) {
        if (computed[column] != null) {
            return computed[column].value(this) == null;
        }
        Aggregator a = aggregators[column];
        if (a != null) {
            return a.computed() ? a.value() == null : a.best() == null;
        }
        return first == null || first.isNull(column);
    }

    @Override
    public Object value(int column) {
        if (computed[column] != null) {
            return computed[column].value(this);
        }
        Aggregator a = aggregators[column];
        if (a != null) {
            return a.value();
        }
        return first == null ? null : first.value(column);
    }

    @Override
    public boolean computed(int column) {
        if (computed[column] != null) {
            return true;
        }
        Aggregator a = aggregators[column];
        return a != null && a.computed();
    }

    @Override
    public MergedRow source(int column) {
        Aggregator a = aggregators[column];
        return computed[column] != null ? this : a != null ? a.best() : first;
    }

    @Override
    public void copyCell(ByteBuf out, int column) {
        Aggregator a = aggregators[column];
        (a != null ? a.best() : first).copyCell(out, column);
    }
}
