package io.shardgate.router.resultcache;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardgate.cache.CacheConfig;
import io.shardgate.cache.QualifiedTable;
import io.shardgate.sharding.digest.Digest;
import org.junit.jupiter.api.Test;

class CacheShapeTest {
    private final RouterResultCache cache = new RouterResultCache(CacheConfig.DEFAULTS, new SimpleMeterRegistry());

    @Test
    void statementsOfOneShapeShareItsFactsWorkedOutOnce() {
        CacheShape first = cache.shape("shop", Digest.of("SELECT c FROM items WHERE id = 1"));
        assertThat(cache.shape("shop", Digest.of("select c from items where id = 2")))
                .isSameAs(first);
        assertThat(first.write().isNone()).isTrue();
        assertThat(first.uncacheable()).isNull();
        assertThat(first.reads()).contains(QualifiedTable.of("shop", "items"));
        // another schema is another shape: unqualified names resolve there
        assertThat(cache.shape("other", Digest.of("SELECT c FROM items WHERE id = 1"))
                        .reads())
                .contains(QualifiedTable.of("other", "items"));
    }

    @Test
    void aSetStatementPrefixMakesAnotherShape() {
        CacheShape plain = cache.shape("shop", Digest.of("SELECT c FROM items WHERE id = 1"));
        CacheShape prefixed = cache.shape(
                "shop", Digest.of("SET STATEMENT max_statement_time = 1 FOR SELECT c FROM items WHERE id = 1"));
        assertThat(prefixed).isNotSameAs(plain);
        assertThat(prefixed.uncacheable()).isEqualTo("SET STATEMENT ... FOR");
        assertThat(plain.uncacheable()).isNull();
    }

    @Test
    void writesAndRollbacksAreFactsOfTheShape() {
        assertThat(cache.shape("shop", Digest.of("UPDATE IGNORE items SET c = 1 WHERE id = 3"))
                        .write()
                        .tables())
                .containsExactly(QualifiedTable.of("shop", "items"));
        assertThat(cache.shape("shop", Digest.of("ROLLBACK")).rollback()).isTrue();
        assertThat(cache.shape("shop", Digest.of("ROLLBACK TO SAVEPOINT s")).rollback())
                .isFalse();
    }
}
