package io.shardgate.merge;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/** The rows of every shard's result set, shard after shard, each shard's in its order. */
final class ConcatenatedRows implements Iterator<ShardRow> {
    private final List<ShardResponse> shards;
    private final boolean binary;
    private int shard = -1;
    private PacketReader rows;

    ConcatenatedRows(List<ShardResponse> shards, boolean binary) {
        this.shards = shards;
        this.binary = binary;
    }

    @Override
    public boolean hasNext() {
        while (rows == null || !rows.hasNext()) {
            if (shard + 1 >= shards.size()) {
                return false;
            }
            rows = shards.get(++shard).rows();
        }
        return true;
    }

    @Override
    public ShardRow next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        ShardResponse s = shards.get(shard);
        return new ShardRow(s.shard, rows.next(), s.columns, binary);
    }
}
