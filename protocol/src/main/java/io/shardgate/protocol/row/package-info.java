/**
 * Result row values: text rows (Text Resultset Row), binary rows (Binary Protocol Resultset Row) and
 * binary parameters (COM_STMT_EXECUTE), decoded into Java values to merge multi-shard results and
 * encoded back.
 *
 * <p>Java values by MySQL type: NULL is {@code null}; TINY, SHORT, INT24, LONG, YEAR and LONGLONG
 * are {@link java.lang.Long} (signed or unsigned), except LONGLONG UNSIGNED, which is
 * {@link java.math.BigInteger}; FLOAT is {@link java.lang.Float}; DOUBLE is {@link java.lang.Double};
 * DECIMAL and NEWDECIMAL are {@link java.math.BigDecimal}; DATE, DATETIME and TIMESTAMP are
 * {@link io.shardgate.protocol.row.MySqlDateTime}; TIME is {@link java.time.Duration}; BIT, strings,
 * blobs, ENUM, SET, JSON, GEOMETRY and VECTOR are {@code byte[]} exactly as sent (character set
 * conversion is the caller's business).
 */
package io.shardgate.protocol.row;
