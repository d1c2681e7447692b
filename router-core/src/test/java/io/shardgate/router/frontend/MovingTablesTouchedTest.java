package io.shardgate.router.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.cache.QualifiedTable;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MovingTablesTouchedTest {
    private static final QualifiedTable ORDERS = QualifiedTable.of("shop", "orders");
    private static final QualifiedTable ITEMS = QualifiedTable.of("shop", "order_items");

    @Test
    void aTransactionThatTouchedAHeldTableIsKnownUntilItEnds() {
        MovingTablesTouched touched = new MovingTablesTouched();
        assertThat(touched.anyOf(Set.of(ORDERS))).isFalse();
        touched.ran(Set.of(ORDERS));
        assertThat(touched.anyOf(Set.of(ORDERS))).isTrue();
        assertThat(touched.anyOf(Set.of(ITEMS, ORDERS))).isTrue();
        assertThat(touched.anyOf(Set.of(ITEMS))).as("another move's held table").isFalse();
        touched.transactionOver();
        assertThat(touched.anyOf(Set.of(ORDERS))).isFalse();
    }
}
