package io.shardgate.router.resultcache;

import io.shardgate.cache.Cacheability;
import io.shardgate.cache.QualifiedTable;
import io.shardgate.sharding.digest.Digest;
import java.util.Set;

/**
 * What one statement shape (session schema, normalized text, with or without a {@code SET
 * STATEMENT} prefix) means to the result cache. Every statement of a shape shares these facts, so
 * they are worked out once from the first one's digest and remembered ({@link
 * RouterResultCache#shape}): no later statement of the shape is scanned for them again.
 *
 * @param write what a statement of this shape changes ({@link Invalidation#NONE} for reads)
 * @param rollback a ROLLBACK that discards the transaction's writes (not ROLLBACK TO SAVEPOINT)
 * @param uncacheable why its results can never be cached, or null (see {@link
 *     Cacheability#uncacheableReason})
 * @param reads every table it may read: a superset (see {@link StatementTables#read})
 */
public record CacheShape(Invalidation write, boolean rollback, String uncacheable, Set<QualifiedTable> reads) {

    /** The facts of the shape of {@code digest} in session schema {@code schema} (null: none). */
    static CacheShape of(String schema, Digest digest) {
        String text = digest.text();
        return new CacheShape(
                StatementTables.write(schema, text),
                StatementTables.isRollback(text),
                Cacheability.uncacheableReason(digest),
                Set.copyOf(StatementTables.read(schema, text)));
    }
}
