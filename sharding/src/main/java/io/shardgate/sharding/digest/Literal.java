package io.shardgate.sharding.digest;

/**
 * One literal or placeholder of the client's SQL, replaced by {@code ?} in the normalized text.
 *
 * @param slot index of the {@code ?} of the normalized text it belongs to; the literals of a
 *     collapsed {@code IN (...)} list share one slot
 * @param start offset of the first character in the client's SQL (a folded unary sign included)
 * @param end offset after the last character
 * @param parameter for {@link LiteralKind#PARAMETER}, the placeholder's number from 0 in the
 *     statement; otherwise -1
 */
public record Literal(LiteralKind kind, int slot, int start, int end, int parameter) {}
