package io.shardgate.move;

import io.shardgate.sharding.rule.BroadcastStrategy;
import io.shardgate.sharding.rule.KeyedStrategy;
import io.shardgate.sharding.rule.ShardingStrategy;
import io.shardgate.sharding.rule.SingleStrategy;

/**
 * Which rows of one table a move carries: those the running rules place on {@code source} and the
 * new rules place on {@code target}. One definition for every kind of move (hash buckets, a range
 * split, a whole table): the mover never reimplements placement, it asks both rule versions, so a
 * row is moved exactly when the switch to the new version changes where the router looks for it.
 */
public final class MovingRows {
    private final ShardingStrategy running;
    private final ShardingStrategy next;
    private final int source;
    private final int target;

    private MovingRows(ShardingStrategy running, ShardingStrategy next, int source, int target) {
        this.running = running;
        this.next = next;
        this.source = source;
        this.target = target;
    }

    /**
     * The rows leaving {@code source} for {@code target} when the table's strategy changes from
     * {@code running} to {@code next}.
     *
     * @throws IllegalArgumentException when the change is not a move this mover can carry out (see
     *     the messages: they reach the operator)
     */
    public static MovingRows of(ShardingStrategy running, ShardingStrategy next, int source, int target) {
        if (source == target) {
            throw new IllegalArgumentException("source and target are both hostgroup " + source);
        }
        if (running instanceof BroadcastStrategy || next instanceof BroadcastStrategy) {
            throw new IllegalArgumentException(
                    "a broadcast table is copied to a new hostgroup whole, not moved by rows (load it there and add"
                            + " the hostgroup to the table's hostgroups)");
        }
        if (!running.hostgroups().contains(source)) {
            throw new IllegalArgumentException(
                    "hostgroup " + source + " holds no rows of the table under the running rules");
        }
        if (!next.hostgroups().contains(target)) {
            throw new IllegalArgumentException("the new rules place no rows of the table on hostgroup " + target);
        }
        if (running instanceof KeyedStrategy r
                && next instanceof KeyedStrategy n
                && !r.kind().equals(n.kind())) {
            throw new IllegalArgumentException("the table's strategy changes from " + r.kind() + " to " + n.kind()
                    + ": rows are moved" + " between hostgroups under one strategy, not re-placed under another");
        }
        if (running instanceof KeyedStrategy r
                && next instanceof KeyedStrategy n
                && (r.keyType() != n.keyType() || !r.column().equalsIgnoreCase(n.column()))) {
            throw new IllegalArgumentException("the sharding key (its column or type) changes between the versions");
        }
        if (running instanceof KeyedStrategy != next instanceof KeyedStrategy) {
            throw new IllegalArgumentException("the table changes between sharded and unsharded: not a move");
        }
        return new MovingRows(running, next, source, target);
    }

    /** Whether the table is placed by a key (hash, range): only then do rows move one by one. */
    public boolean byKey() {
        return running instanceof KeyedStrategy;
    }

    /** The sharding key's column, or null for a whole-table move. */
    public String keyColumn() {
        return running instanceof KeyedStrategy k ? k.column() : null;
    }

    public int source() {
        return source;
    }

    public int target() {
        return target;
    }

    /**
     * Whether the row whose sharding key is {@code key} (as JDBC reads it: Long, BigInteger,
     * BigDecimal, String...) moves. A key the rules place nowhere (NULL, a value they cannot read)
     * never moves: the router cannot route to it by key either, and the row stays where it is.
     */
    public boolean moves(Object key) {
        if (running instanceof SingleStrategy r && next instanceof SingleStrategy n) {
            return r.hostgroup() == source && n.hostgroup() == target;
        }
        KeyedStrategy r = (KeyedStrategy) running;
        KeyedStrategy n = (KeyedStrategy) next;
        return r.hostgroupOf(key) == source && n.hostgroupOf(key) == target;
    }
}
