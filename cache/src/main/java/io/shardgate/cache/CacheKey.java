package io.shardgate.cache;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Literal;
import io.shardgate.sharding.digest.LiteralKind;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * What identifies one cached result: the logical schema, the statement (digest hash and normalized
 * text, so two texts sharing a hash never share a result), its literals exactly as the client
 * wrote them, the bound parameter values of a prepared statement, the user when the query rules
 * depend on it, the row format, and the session state the response bytes depend on.
 *
 * <p>Literals are kept as source text rather than decoded values: {@code _latin1'a'} and {@code
 * 'a'}, or {@code 1.0} and {@code 1.00}, answer differently, and the source costs no decoding.
 *
 * @param schema the session's logical schema (may be null when none is selected)
 * @param literals each literal's source text in order; a placeholder is "?"
 * @param parameters bound values of a prepared statement in order (empty for COM_QUERY); {@code
 *     byte[]} values are held as read-only {@link ByteBuffer} copies so they compare by content
 * @param user the user, or null when the key does not depend on it
 * @param variant an immutable value with equals/hashCode standing for the session state the
 *     response bytes depend on (CLIENT_DEPRECATE_EOF, character_set_results, time_zone, sql_mode,
 *     ...); equal variants must mean byte-identical answers
 */
public record CacheKey(
        String schema,
        long digestHash,
        String digestText,
        List<String> literals,
        List<Object> parameters,
        String user,
        RowFormat format,
        Object variant) {

    public CacheKey {
        Objects.requireNonNull(digestText);
        Objects.requireNonNull(format);
        literals = List.copyOf(literals);
        parameters = Collections.unmodifiableList(comparable(parameters));
    }

    /** The key of a COM_QUERY: literals from the digest, no parameters. */
    public static CacheKey forQuery(String schema, Digest digest, String user, CachePolicy policy, Object variant) {
        return new CacheKey(
                schema,
                digest.hash(),
                digest.text(),
                literalSources(digest),
                List.of(),
                policy.keyByUser() ? user : null,
                RowFormat.TEXT,
                variant);
    }

    /**
     * The key of a COM_STMT_EXECUTE of a statement prepared as {@code digest}, with its bound
     * values in placeholder order ({@code null} for SQL NULL; decoded values or each parameter's
     * raw bytes, consistently).
     */
    public static CacheKey forExecute(
            String schema, Digest digest, List<?> parameters, String user, CachePolicy policy, Object variant) {
        return new CacheKey(
                schema,
                digest.hash(),
                digest.text(),
                literalSources(digest),
                new ArrayList<>(parameters),
                policy.keyByUser() ? user : null,
                RowFormat.BINARY,
                variant);
    }

    /** A rough count of the bytes the key occupies, weighed with the result against max_bytes. */
    int weight() {
        int w = 64 + 2 * digestText.length();
        for (String l : literals) {
            w += 40 + 2 * l.length();
        }
        return w + 16 * parameters.size();
    }

    private static List<String> literalSources(Digest digest) {
        List<Literal> literals = digest.literals();
        if (literals.isEmpty()) {
            return List.of();
        }
        List<String> sources = new ArrayList<>(literals.size());
        for (Literal l : literals) {
            sources.add(l.kind() == LiteralKind.PARAMETER ? "?" : digest.source(l));
        }
        return sources;
    }

    private static List<Object> comparable(List<Object> values) {
        List<Object> copy = new ArrayList<>(values.size());
        for (Object v : values) {
            copy.add(
                    v instanceof byte[] b
                            ? ByteBuffer.wrap(Arrays.copyOf(b, b.length)).asReadOnlyBuffer()
                            : v);
        }
        return copy;
    }
}
