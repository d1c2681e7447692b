package io.shardgate.sharding.rule;

/**
 * The SQL type family of a sharding key column, which decides how a literal or bound value is turned
 * into the canonical form that is hashed or compared with range boundaries.
 *
 * <ul>
 *   <li>{@link #INTEGER}: an integer column (TINYINT..BIGINT, signed values that fit a Java long).
 *       Integer literals, integral decimals ({@code 42.0}) and strings holding a plain decimal
 *       integer ({@code '42'}, {@code '-042'}) all map to the same long, as MySQL compares them
 *       numerically with an integer column.
 *   <li>{@link #STRING}: a string column compared byte for byte: it must use a binary collation
 *       ({@code utf8mb4_bin}, VARBINARY), because case- or accent-insensitive collations make
 *       different byte strings equal. Only string literals and string parameters route; a number
 *       compared with a string column is compared numerically by MySQL ({@code '042' = 42}), so it
 *       cannot be routed by key.
 * </ul>
 */
public enum KeyType {
    INTEGER,
    STRING
}
