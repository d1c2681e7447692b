package io.shardgate.router.adminsql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MovesTableTest {
    /** A record as MoveControl shows it (JSON numbers come back as Integer or Long). */
    private static Map<String, Object> move(
            String state, int holdGeneration, Map<String, Object> progress, String error) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", "m-0000000003");
        m.put("schema", "shop");
        m.put("tables", List.of("orders", "order_items"));
        m.put("sources", List.of(10, 20));
        m.put("target", 30);
        m.put("what", "768-1023");
        m.put("copyRowsPerSecond", 0);
        m.put("state", state);
        m.put("holdGeneration", holdGeneration);
        if (error != null) {
            m.put("error", error);
        }
        m.put("createdAtMillis", 1000L);
        m.put("updatedAtMillis", 2000L);
        m.put("progress", progress);
        m.put("rulesVersion", 0);
        return m;
    }

    @Test
    void aRowShowsTheRecordAndItsProgress() {
        List<Object> row = MovesTable.row(
                move(
                        "catching_up",
                        0,
                        Map.of(
                                "rows_copied",
                                251904,
                                "rows_per_second",
                                48000L,
                                "binlog_rows",
                                1180,
                                "lag_bytes",
                                4096),
                        null),
                7);
        assertThat(MovesTable.COLUMNS).hasSameSizeAs(row);
        assertThat(row)
                .isEqualTo(Arrays.asList(
                        "m-0000000003",
                        "shop",
                        "orders,order_items",
                        "768-1023",
                        "10,20",
                        30L,
                        "catching_up",
                        251904L,
                        48000L,
                        1180L,
                        4096L,
                        "pending",
                        0L, // not holding: the router's held statements are another move's
                        null,
                        null,
                        0L,
                        null, // reverse_rows, reverse_lag_bytes: a whole-table move's, once done
                        null,
                        null,
                        1000L,
                        2000L));
    }

    @Test
    void aHoldingMoveShowsTheStatementsThisRouterHolds() {
        List<Object> row = MovesTable.row(
                move("cutting_over", 2, Map.of("verified.orders", 10, "verified.order_items", 5), null), 7);
        assertThat(row.get(MovesTable.COLUMNS.indexOf("held_statements"))).isEqualTo(7L);
        assertThat(row.get(MovesTable.COLUMNS.indexOf("diff_status"))).isEqualTo("equal (15 rows)");
    }

    @Test
    void theDiffStatusFollowsTheVerifyPhase() {
        Object tables = List.of("orders", "order_items");
        assertThat(MovesTable.diffStatus("copying", Map.of(), tables, null)).isEqualTo("pending");
        assertThat(MovesTable.diffStatus("verifying", Map.of("verified.orders", 3), tables, null))
                .isEqualTo("running");
        assertThat(MovesTable.diffStatus("cutting_over", Map.of("verified.orders", 3), tables, null))
                .as("one table of two compared: the other was not")
                .isEqualTo("not run");
        assertThat(MovesTable.diffStatus(
                        "done", Map.of("verified.orders", 3L, "verified.order_items", 4), tables, null))
                .isEqualTo("equal (7 rows)");
        assertThat(MovesTable.diffStatus("failed", Map.of(), tables, "verify: 2 rows of orders differ ..."))
                .isEqualTo("differs");
        assertThat(MovesTable.diffStatus("cancelled", Map.of(), tables, null)).isEqualTo("not run");
    }

    @Test
    void anInsertRowIsAMoveToStart() {
        MovesTable.Start start = MovesTable.Start.of(
                List.of("schema_name", "table_name", "buckets", "to_hostgroup", "copy_rows_per_second"),
                List.of("shop", "orders", "12-15", 30L, 2000L));
        assertThat(start).isEqualTo(new MovesTable.Start("shop", "orders", "12-15", 30, 2000));
        assertThat(MovesTable.Start.of(
                                List.of("SCHEMA_NAME", "table_name", "buckets", "to_hostgroup"),
                                List.of("shop", "orders", "12-15", 30L))
                        .rowsPerSecond())
                .isZero();
    }

    @Test
    void aBadInsertRowNamesItsProblem() {
        assertThatThrownBy(() -> MovesTable.Start.of(
                        List.of("schema_name", "table_name", "buckets"), List.of("shop", "orders", "12-15")))
                .isInstanceOf(AdminSqlException.class)
                .hasMessage("Field 'to_hostgroup' doesn't have a default value");
        assertThatThrownBy(() -> MovesTable.Start.of(
                        List.of("schema_name", "table_name", "buckets", "to_hostgroup"),
                        List.of("shop", "orders", "12-15", "thirty")))
                .hasMessage("Incorrect integer value: 'thirty' for column 'to_hostgroup'");
        assertThatThrownBy(() -> MovesTable.Start.of(
                        List.of("schema_name", "table_name", "buckets", "to_hostgroup", "state"),
                        List.of("shop", "orders", "12-15", 30L, "done")))
                .hasMessageStartingWith("Unknown column 'state' in 'field list'");
        assertThatThrownBy(() -> MovesTable.Start.of(
                        List.of("schema_name", "table_name", "buckets", "to_hostgroup", "copy_rows_per_second"),
                        List.of("shop", "orders", "12-15", 30L, -1L)))
                .hasMessage("Incorrect integer value: '-1' for column 'copy_rows_per_second'");
    }

    @Test
    void onlyACancelReverseOrCleanupByIdIsAnUpdate() {
        MovesTable table = new MovesTable(null, () -> 0);
        assertThatThrownBy(() -> table.update(Map.of("buckets", "1-2"), Map.of("id", "m-1")))
                .hasMessageContaining("updatable in its state column only");
        assertThatThrownBy(() -> table.update(Map.of("state", "done"), Map.of("id", "m-1")))
                .hasMessage("Incorrect value 'done' for column 'state': only 'cancelled', 'reversing' and"
                        + " 'cleaning_source' are set");
        assertThatThrownBy(() -> table.update(Map.of("state", "reversing"), Map.of("id", "m-1")))
                .hasMessage("this router runs no move control");
        assertThatThrownBy(() -> table.update(Map.of("state", "cancelled"), Map.of()))
                .hasMessage("name one move: WHERE id = 'm-...'");
    }

    @Test
    void errorsCarryTheirMysqlCodes() {
        MovesTable table = new MovesTable(null, () -> 0);
        assertThatThrownBy(() -> table.insert(null, List.of(List.of("shop"))))
                .isInstanceOfSatisfying(
                        AdminSqlException.class, e -> assertThat(e.code()).isEqualTo(1105));
        assertThatThrownBy(() -> table.insert(List.of("schema_name", "table_name"), List.of(List.of("shop"))))
                .isInstanceOfSatisfying(
                        AdminSqlException.class, e -> assertThat(e.code()).isEqualTo(1136));
        assertThat(table.rows().rows()).isEmpty();
    }
}
