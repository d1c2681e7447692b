package io.shardgate.admin.http;

import java.util.List;
import java.util.Map;

/**
 * Online resharding as operators reach it over HTTP (docs/moves.md): start a move, watch it, cancel
 * it, reverse or clean up a done whole-table move. Called from the HTTP threads; may block on ZooKeeper.
 */
public interface MoveControl {
    /**
     * Starts moving buckets {@code buckets} ({@code "lo-hi"}) of {@code schema.table} (and the tables
     * bound to it), or the whole table of a {@code table} rule ({@code "table"}), to hostgroup {@code to}, the copy reading at most {@code copyRowsPerSecond} source
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

    /**
     * Switches the done whole-table move {@code id} back to its source (state {@code reversing}, then
     * {@code reversed}).
     *
     * @throws IllegalArgumentException when there is no such move
     * @throws IllegalStateException when it is not a done whole-table move with its reverse stream
     *     (a bucket move, cleaned up, under way...)
     */
    void reverse(String id) throws Exception;

    /**
     * Stops the reverse stream of the done whole-table move {@code id} and deletes the source's rows
     * of its table (state {@code cleaning_source}, then {@code done}); it cannot be reversed after.
     *
     * @throws IllegalArgumentException when there is no such move
     * @throws IllegalStateException when it is not a done whole-table move, or cleaned up already
     */
    void cleanup(String id) throws Exception;
}
