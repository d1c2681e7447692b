package io.shardgate.router.move;

import static io.shardgate.router.move.StatementHold.Outcome.REFUSE_DDL;
import static io.shardgate.router.move.StatementHold.Outcome.RUN;
import static io.shardgate.router.move.StatementHold.Outcome.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.cache.QualifiedTable;
import io.shardgate.sharding.digest.Digest;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StatementHoldTest {
    private static final QualifiedTable ORDERS = QualifiedTable.of("shop", "orders");
    private static final QualifiedTable ITEMS = QualifiedTable.of("shop", "order_items");
    private static final MovingTables COPYING = new MovingTables(Map.of(ORDERS, "m1", ITEMS, "m1"), Set.of());
    private static final MovingTables CUTTING_OVER =
            new MovingTables(Map.of(ORDERS, "m1", ITEMS, "m1"), Set.of(ORDERS, ITEMS));

    @Test
    void withoutMovesEverythingRuns() {
        assertThat(decide(MovingTables.NONE, "shop", "ALTER TABLE orders ADD c INT"))
                .isEqualTo(RUN);
    }

    @Test
    void ddlOnAMovingTableIsRefusedForTheWholeMove() {
        for (String ddl : new String[] {
            "ALTER TABLE orders ADD c INT",
            "alter table shop.ORDERS drop column c",
            "DROP TABLE order_items",
            "RENAME TABLE orders TO old_orders",
            "TRUNCATE orders",
            "CREATE INDEX i ON orders (c)",
            "OPTIMIZE TABLE orders",
            "DROP DATABASE shop",
        }) {
            assertThat(decide(COPYING, "shop", ddl)).as(ddl).isEqualTo(REFUSE_DDL);
            assertThat(decide(CUTTING_OVER, "shop", ddl)).as(ddl).isEqualTo(REFUSE_DDL);
        }
        assertThat(StatementHold.moveOf(
                        COPYING,
                        "shop",
                        Digest.of("ALTER TABLE orders ADD c INT").text()))
                .isEqualTo("m1 (shop.orders)");
        assertThat(decide(COPYING, "shop", "ALTER TABLE customers ADD c INT")).isEqualTo(RUN);
        assertThat(decide(COPYING, "other", "ALTER TABLE orders ADD c INT"))
                .as("another schema's orders")
                .isEqualTo(RUN);
    }

    @Test
    void whileCopyingStatementsRun() {
        assertThat(decide(COPYING, "shop", "UPDATE orders SET total = 1 WHERE id = 5"))
                .isEqualTo(RUN);
        assertThat(decide(COPYING, "shop", "CALL p()")).isEqualTo(RUN);
    }

    @Test
    void duringTheCutoverEveryStatementThatMayTouchAHeldTableWaits() {
        for (String sql : new String[] {
            "SELECT * FROM orders WHERE id = 5",
            "select o.id from customers c join shop.order_items o on o.c = c.id",
            "INSERT INTO orders (id) VALUES (1)",
            "UPDATE orders SET total = total + 1 WHERE id = 7",
            "DELETE FROM order_items WHERE id IN (1, 2)",
            "SELECT (SELECT COUNT(*) FROM orders) AS n",
            "CALL refresh_orders()",
            "EXECUTE stmt",
            "WITH x AS (SELECT 1) DELETE FROM orders",
        }) {
            assertThat(decide(CUTTING_OVER, "shop", sql)).as(sql).isEqualTo(WAIT);
        }
        assertThat(decide(CUTTING_OVER, "shop", "SELECT * FROM customers WHERE id = 1"))
                .isEqualTo(RUN);
        assertThat(decide(CUTTING_OVER, "shop", "INSERT INTO customers VALUES (1)"))
                .isEqualTo(RUN);
        assertThat(decide(CUTTING_OVER, "other", "SELECT * FROM orders")).isEqualTo(RUN);
        assertThat(decide(CUTTING_OVER, "shop", "COMMIT"))
                .as("transactions may end")
                .isEqualTo(RUN);
        assertThat(decide(CUTTING_OVER, "shop", "ROLLBACK")).isEqualTo(RUN);
        assertThat(decide(CUTTING_OVER, "shop", "SET @a = 1")).isEqualTo(RUN);
    }

    private static StatementHold.Outcome decide(MovingTables tables, String schema, String sql) {
        return StatementHold.decide(tables, schema, Digest.of(sql).text());
    }
}
