package io.shardgate.move;

/**
 * One row as the mover carries it.
 *
 * @param values every column's value as {@link RowLayout} reads it (the stored bytes of strings,
 *     exact text of numbers and temporals; null for SQL NULL), in {@link TableShape#columns()} order
 * @param primaryKey the primary key as values to bind in {@code WHERE pk = ?}
 * @param shardKey the sharding key as the rules read it (Long or String), or null
 */
public record Row(byte[][] values, Object[] primaryKey, Object shardKey) {}
