package io.shardgate.router.move;

import static io.shardgate.router.move.StatementHold.Outcome.BY_ROUTE;
import static io.shardgate.router.move.StatementHold.Outcome.REFUSE_DDL;
import static io.shardgate.router.move.StatementHold.Outcome.RUN;
import static io.shardgate.router.move.StatementHold.Outcome.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shardgate.cache.QualifiedTable;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.Planner;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.ArrayList;
import java.util.List;
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
    void aStatementReferencesTheMovingTablesItMayReadOrWrite() {
        assertThat(StatementHold.referenced(
                        COPYING,
                        "shop",
                        Digest.of("UPDATE orders SET amount = 1 WHERE id = 3").text()))
                .containsExactly(ORDERS);
        assertThat(StatementHold.referenced(
                        COPYING,
                        "shop",
                        Digest.of("SELECT * FROM orders o JOIN order_items i ON o.id = i.order_id")
                                .text()))
                .containsExactlyInAnyOrder(ORDERS, ITEMS);
        assertThat(StatementHold.referenced(
                        COPYING,
                        "other",
                        Digest.of("SELECT * FROM shop.order_items").text()))
                .containsExactly(ITEMS);
        assertThat(StatementHold.referenced(
                        COPYING, "shop", Digest.of("SELECT * FROM customers").text()))
                .isEmpty();
        assertThat(StatementHold.referenced(
                        COPYING, "shop", Digest.of("CALL refresh()").text()))
                .as("effects the router cannot see: every moving table")
                .containsExactlyInAnyOrder(ORDERS, ITEMS);
    }

    @Test
    void aTransactionThatTouchedAHeldTableOfTheMoveRunsThroughItsHold() {
        QualifiedTable customers = QualifiedTable.of("shop", "customers");
        // move m1 (orders, order_items) holds; m2 (customers) holds too, acknowledged or not
        MovingTables holding =
                new MovingTables(Map.of(ORDERS, "m1", ITEMS, "m1", customers, "m2"), Set.of(ORDERS, ITEMS, customers));
        String items = Digest.of("SELECT * FROM order_items WHERE order_id = 1").text();
        String both = Digest.of("SELECT * FROM order_items i JOIN customers c ON c.id = i.customer_id")
                .text();
        assertThat(StatementHold.runsWithItsTransaction(holding, Set.of(), "shop", items))
                .isFalse();
        assertThat(StatementHold.runsWithItsTransaction(holding, Set.of(ORDERS), "shop", items))
                .as("a held table of the same move touched: its cutover waits for this transaction")
                .isTrue();
        assertThat(StatementHold.runsWithItsTransaction(holding, Set.of(customers), "shop", items))
                .as("only another move's table touched: m1 may be locking the source already")
                .isFalse();
        assertThat(StatementHold.runsWithItsTransaction(holding, Set.of(ORDERS), "shop", both))
                .as("it reaches m2's table too, untouched")
                .isFalse();
        assertThat(StatementHold.runsWithItsTransaction(holding, Set.of(ORDERS, customers), "shop", both))
                .isTrue();
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

    /** Rules version 7: buckets 8-15 of orders (and order_items, bound to it) moved from 20 to 30. */
    private static final RuleSnapshot SWITCHED = rules(7, """
            hostgroups: [10, 20, 30]
            schemas:
              - name: shop
                default_hostgroup: 10
                tables:
                  - {name: orders, strategy: hash, column: id, buckets: 16, hostgroups: {10: "0-7", 30: "8-15"}}
                  - {name: customers, strategy: hash, column: id, buckets: 16, hostgroups: {10: "0-7", 20: "8-15"}}
            """);

    private static final Planner PLANNER = new Planner();

    private static MovingTables cleaning(long version, boolean keyWritesRun) {
        return new MovingTables(
                Map.of(ORDERS, "m1"), Set.of(), Map.of(ORDERS, new MovingTables.Cleanup(version, keyWritesRun)));
    }

    @Test
    void duringTheCleanupStatementsOnTheTableAreDecidedByTheirRoute() {
        assertThat(decide(cleaning(7, true), "shop", "SELECT COUNT(*) FROM orders"))
                .isEqualTo(BY_ROUTE);
        assertThat(decide(cleaning(7, true), "shop", "UPDATE orders SET note = 'x' WHERE id = 1"))
                .isEqualTo(BY_ROUTE);
        assertThat(decide(cleaning(7, true), "shop", "CALL p()"))
                .as("effects unknown")
                .isEqualTo(BY_ROUTE);
        assertThat(decide(cleaning(7, true), "shop", "SELECT * FROM customers WHERE id > 1"))
                .isEqualTo(RUN);
        assertThat(decide(cleaning(7, true), "shop", "ALTER TABLE orders ADD c INT"))
                .isEqualTo(REFUSE_DDL);
    }

    @Test
    void duringTheCleanupStatementsRoutedToOneShardByTheKeyRun() {
        for (String sql : new String[] {
            "SELECT * FROM orders WHERE id = 5",
            "SELECT note FROM shop.orders WHERE id = 5 AND note LIKE 'a%' ORDER BY note LIMIT 3",
            "SELECT * FROM orders WHERE id IN (5)",
            "SELECT * FROM orders WHERE id = 5 FOR UPDATE",
        }) {
            assertThat(cleanup(cleaning(7, false), sql)).as(sql).isEqualTo(RUN);
        }
        for (String sql : new String[] {
            "UPDATE orders SET note = 'x' WHERE id = 5",
            "DELETE FROM orders WHERE id = 5",
            "INSERT INTO orders (id, note) VALUES (5, 'x')",
        }) {
            assertThat(cleanup(cleaning(7, true), sql)).as(sql).isEqualTo(RUN);
            assertThat(cleanup(cleaning(7, false), sql))
                    .as("%s: a unique index without the key could meet a stale copy", sql)
                    .isEqualTo(WAIT);
        }
    }

    @Test
    void duringTheCleanupStatementsThatMayReachTheStaleCopiesWait() {
        for (String sql : new String[] {
            "SELECT COUNT(*) FROM orders",
            "SELECT * FROM orders WHERE id BETWEEN 1 AND 100",
            "SELECT * FROM orders WHERE note = 'x'",
            "SELECT * FROM orders WHERE id = 5 OR note = 'x'",
            "UPDATE orders SET note = 'x' WHERE note = 'y'",
            "DELETE FROM orders WHERE id > 5",
            "SELECT * FROM orders WHERE id = 5 AND note IN (SELECT note FROM orders)",
            "SELECT o.id FROM orders o JOIN orders p ON p.note = o.note WHERE o.id = 5",
            "SELECT id FROM orders WHERE id = 5 UNION SELECT id FROM orders WHERE id = 6",
            "SELECT * FROM (SELECT * FROM orders) d WHERE d.id = 5",
            "INSERT INTO orders (id, note) SELECT id, note FROM customers WHERE id = 5",
        }) {
            assertThat(cleanup(cleaning(7, true), sql)).as(sql).isEqualTo(WAIT);
        }
        String twoShards = "SELECT * FROM orders WHERE id IN (" + keyOn(10) + ", " + keyOn(30) + ")";
        assertThat(cleanup(cleaning(7, true), twoShards))
                .as("an IN list over two shards: the source's copy of the moved key would answer too")
                .isEqualTo(WAIT);
        assertThat(cleanup(cleaning(8, true), "SELECT * FROM orders WHERE id = 5"))
                .as("planned by rules older than the switch")
                .isEqualTo(WAIT);
        assertThat(StatementHold.duringCleanup(
                        cleaning(7, true), "shop", "SELECT * FROM orders WHERE id = 5", null, null))
                .as("no plan (a query rule's destination)")
                .isEqualTo(WAIT);
    }

    /** A key of orders that hostgroup {@code hostgroup} owns under {@link #SWITCHED}. */
    private static long keyOn(int hostgroup) {
        for (long key = 1; ; key++) {
            Digest d = Digest.of("SELECT * FROM orders WHERE id = " + key);
            Plan p = PLANNER.plan(d, "shop", SWITCHED);
            if (p.targets(d, SWITCHED).targets().get(0).hostgroup() == hostgroup) {
                return key;
            }
        }
    }

    private static StatementHold.Outcome cleanup(MovingTables tables, String sql) {
        Digest digest = Digest.of(sql);
        assertThat(StatementHold.decide(tables, "shop", digest.text())).as(sql).isEqualTo(BY_ROUTE);
        Plan plan = PLANNER.plan(digest, "shop", SWITCHED);
        return StatementHold.duringCleanup(tables, "shop", digest.text(), plan, plan.targets(digest, SWITCHED));
    }

    private static RuleSnapshot rules(long version, String yaml) {
        try {
            JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(yaml);
            List<Integer> hostgroups = new ArrayList<>();
            doc.path("hostgroups").forEach(n -> hostgroups.add(n.asInt()));
            List<JsonNode> schemas = new ArrayList<>();
            doc.path("schemas").forEach(schemas::add);
            return RuleSnapshot.parse(version, hostgroups, schemas, List.of());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static StatementHold.Outcome decide(MovingTables tables, String schema, String sql) {
        return StatementHold.decide(tables, schema, Digest.of(sql).text());
    }
}
