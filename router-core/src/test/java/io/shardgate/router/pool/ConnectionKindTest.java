package io.shardgate.router.pool;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConnectionKindTest {
    private final ConnectionKind none = new ConnectionKind(1, 2, 45, null);
    private final ConnectionKind shop = new ConnectionKind(1, 2, 45, "shop");

    @Test
    void aConnectionOpenedWithoutASchemaThatGotOneServesOnlySessionsWithOne() {
        // issue 23 (main.mysql): a session without a schema must not get one a USE left selected
        assertThat(none.selected("test")).isEqualTo(shop).isNotEqualTo(none);
        assertThat(none.selected(null)).isSameAs(none);
        assertThat(shop.selected("other")).isSameAs(shop);
    }
}
