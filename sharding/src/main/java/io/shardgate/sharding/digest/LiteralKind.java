package io.shardgate.sharding.digest;

/** What a {@code ?} of the normalized text stood for in the client's SQL. */
public enum LiteralKind {
    /** Digits only (a leading unary sign is part of the literal): {@code 42}, {@code -7}. */
    INTEGER,
    /** Fixed point: {@code 1.5}, {@code .5}, {@code 3.}. */
    DECIMAL,
    /** Approximate, with an exponent: {@code 1e3}, {@code -2.5E-4}. */
    FLOAT,
    /** Quoted with {@code '} or {@code "}, optionally with {@code N} or a {@code _charset} introducer. */
    STRING,
    /** {@code X'0A'}, {@code 0x0A}. */
    HEX,
    /** {@code B'101'}, {@code 0b101}. */
    BIT,
    /** A prepared-statement placeholder {@code ?}; its value is bound at execution. */
    PARAMETER
}
