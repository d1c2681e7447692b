package io.shardgate.router.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.cache.QualifiedTable;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MovingTablesTouchedTest {
    private static final QualifiedTable ORDERS = QualifiedTable.of("shop", "orders");
    private static final QualifiedTable ITEMS = QualifiedTable.of("shop", "order_items");

    @Test
    void aTransactionRunsOnlyWhatItAlreadyHoldsAndForgetsItWhenItEnds() {
        MovingTablesTouched touched = new MovingTablesTouched();
        assertThat(touched.covers(Set.of(ORDERS))).isFalse();
        assertThat(touched.anyOf(Set.of(ORDERS))).isFalse();
        touched.ran(Set.of(ORDERS));
        assertThat(touched.covers(Set.of(ORDERS))).isTrue();
        // a held table it has not touched: its lock would wait behind the cutover's, so it waits
        assertThat(touched.covers(Set.of(ORDERS, ITEMS))).isFalse();
        assertThat(touched.covers(Set.of()))
                .as("names no held table: decided elsewhere")
                .isFalse();
        assertThat(touched.anyOf(Set.of(ITEMS, ORDERS))).isTrue();
        touched.transactionOver();
        assertThat(touched.anyOf(Set.of(ORDERS))).isFalse();
    }
}
