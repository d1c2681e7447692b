package io.shardgate.merge;

import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * A k-way merge of shard results that each shard already sorted by the statement's ORDER BY: one
 * head row per shard in a priority queue, ties broken by shard order so equal keys come out in a
 * stable order. Holds one row per shard, whatever the result size.
 */
final class SortedShardRows implements Iterator<ShardRow> {
    private record Head(ShardRow row, PacketReader rest) {}

    private final PriorityQueue<Head> heads;
    private final boolean binary;
    private final List<ShardResponse> shards;

    SortedShardRows(List<ShardResponse> shards, boolean binary, Comparator<MergedRow> order) {
        this.shards = shards;
        this.binary = binary;
        Comparator<Head> byRow = (a, b) -> order.compare(a.row(), b.row());
        this.heads = new PriorityQueue<>(Math.max(1, shards.size()), byRow.thenComparingInt(h -> h.row().shard));
        for (ShardResponse s : shards) {
            advance(s.rows(), s);
        }
    }

    private void advance(PacketReader rows, ShardResponse s) {
        if (rows.hasNext()) {
            heads.add(new Head(new ShardRow(s.shard, rows.next(), s.columns, binary), rows));
        }
    }

    @Override
    public boolean hasNext() {
        return !heads.isEmpty();
    }

    @Override
    public ShardRow next() {
        Head head = heads.poll();
        if (head == null) {
            throw new NoSuchElementException();
        }
        advance(head.rest(), shards.get(head.row().shard));
        return head.row();
    }
}
