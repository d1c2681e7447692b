package io.shardgate.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.sharding.digest.Digest;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A lookup that finds a fill which has just ended but whose result is not stored yet joins it and
 * gets that result: no second backend query in the gap between the end and the store.
 */
class FillTicketTest {
    private static FillTicket ticket() {
        CacheKey key = CacheKey.forQuery("shop", Digest.of("SELECT c FROM orders"), "app", ResultCacheTest.RULE_3, "v");
        return new FillTicket(key, ResultCacheTest.RULE_3, Set.of(ResultCacheTest.ORDERS), 0, 1, 0);
    }

    @Test
    void aLateJoinerGetsTheResultTheFillEndedWith() {
        FillTicket ticket = ticket();
        ByteBuf response = Unpooled.copiedBuffer("rows", StandardCharsets.UTF_8);
        CacheEntry entry = new CacheEntry(ticket.key, ticket.policy, ticket.tables, 0, 1, response.asReadOnly());
        assertThat(ticket.finish(entry)).isEmpty();
        Lookup late = ticket.join().join();
        assertThat(late).isInstanceOf(Lookup.Hit.class);
        ByteBuf bytes = ((Lookup.Hit) late).response();
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("rows");
        bytes.release();
        entry.release();
        assertThat(response.refCnt()).isZero();
        assertThat(ticket.join()).as("the result is gone: the joiner fills").isNull();
        assertThat(ticket.finish(null)).as("a ticket ends once").isNull();
    }

    @Test
    void aFillThatEndedWithoutAResultHasNothingToShare() {
        FillTicket ticket = ticket();
        assertThat(ticket.join()).isNotNull(); // a waiter while it runs
        assertThat(ticket.finish(null)).hasSize(1);
        assertThat(ticket.join()).isNull();
    }
}
