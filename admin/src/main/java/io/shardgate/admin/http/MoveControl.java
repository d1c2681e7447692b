package io.shardgate.admin.http;

import java.util.List;
import java.util.Map;

/**
 * Online resharding as operators reach it over HTTP (docs/moves.md): start a move, watch it, cancel
 * it. Called from the HTTP threads; may block on ZooKeeper.
 */
public interface MoveControl {
    /**
     * Starts moving buckets {@code buckets} ({@code "lo-hi"}) of {@code schema.table} (and the tables
     * bound to it) to hostgroup {@code to}, the copy reading at most {@code copyRowsPerSecond} source
     * rows a second (0: no limit); returns the move's id.
     *
     * @throws IllegalArgumentException when the request is not a move the rules allow (the message
     *     says why)
     * @throws IllegalStateException when another move of those tables is under way
     */
    String start(String schema, String table, String buckets, int to, long copyRowsPerSecond) throws Exception;

    /** Every move, oldest first, as {@link #get} shows one. */
    List<Map<String, Object>> list() throws Exception;

    /** The move {@code id} (its record: state, progress...), or null. */
    Map<String, Object> get(String id) throws Exception;

    /**
     * Cancels the move {@code id}; the rows copied so far stay on the target (not routed to).
     *
     * @throws IllegalArgumentException when there is no such move
     * @throws IllegalStateException when it ended already or is cutting over
     */
    void cancel(String id) throws Exception;
}
