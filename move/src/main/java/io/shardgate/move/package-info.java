/**
 * Online resharding's data mover: which rows move ({@link io.shardgate.move.MovingRows}), the tables'
 * shapes, the copy, the binary log catch-up and the verification. JDBC and the binary log client are
 * the I/O; the decisions (which row moves, which statement writes it) are pure.
 */
package io.shardgate.move;
