/**
 * The catch-up of a move: follows the source shard's binary log ({@link
 * io.shardgate.move.binlog.BinlogTail}) and reports, per committed transaction, the primary keys of
 * the rows it changed in the moving tables and the position to resume from ({@link
 * io.shardgate.move.binlog.ChangedKeys}). The mover re-reads those rows from the source by key
 * ({@link io.shardgate.move.binlog.PrimaryKeyValues} makes the log's values bindable) and never
 * applies the log's row images. What could hide a change is refused, never guessed.
 */
package io.shardgate.move.binlog;
