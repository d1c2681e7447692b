package io.shardgate.move;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.move.TableShape.Column;
import io.shardgate.sharding.rule.HashStrategy;
import io.shardgate.sharding.rule.KeyType;
import io.shardgate.sharding.rule.SingleStrategy;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RowSqlTest {
    private static final TableShape ORDERS = new TableShape(
            "shop",
            "orders",
            List.of(
                    new Column("customer_id", "bigint", "bigint(20) unsigned", null),
                    new Column("name", "varchar", "varchar(20)", "latin1"),
                    new Column("weight", "float", "float", null),
                    new Column("flags", "bit", "bit(8)", null),
                    new Column("total", "decimal", "decimal(10,2)", null, true)),
            List.of(0, 1));

    private static final RowLayout LAYOUT = new RowLayout(
            ORDERS,
            MovingRows.of(
                    new HashStrategy("customer_id", KeyType.INTEGER, new int[] {10, 20}),
                    new HashStrategy("customer_id", KeyType.INTEGER, new int[] {10, 30}),
                    20,
                    30));

    @Test
    void readsEveryColumnExactlyThenTheKeysToBind() {
        assertThat(LAYOUT.selectList())
                .isEqualTo("CAST(`customer_id` AS BINARY), CAST(`name` AS BINARY), CAST(CAST(`weight` AS DOUBLE) AS"
                        + " BINARY), CAST(CAST(`flags` AS UNSIGNED) AS BINARY), CAST(`total` AS BINARY), CAST(`customer_id`"
                        + " AS BINARY), CAST(CONVERT(`name` USING utf8mb4) AS BINARY), CAST(`customer_id` AS BINARY)");
        assertThat(LAYOUT.width()).isEqualTo(8);
        assertThat(LAYOUT.writtenColumns())
                .as("the generated column is not written")
                .containsExactly(0, 1, 2, 3);
    }

    @Test
    void chunksWalkTheCompositeKeyInOrder() {
        assertThat(RowSql.chunk(LAYOUT, false, 500))
                .isEqualTo("SELECT " + LAYOUT.selectList() + " FROM `shop`.`orders` ORDER BY `customer_id`, `name`"
                        + " LIMIT 500");
        assertThat(RowSql.chunk(LAYOUT, true, 500))
                .isEqualTo("SELECT " + LAYOUT.selectList() + " FROM `shop`.`orders` WHERE (`customer_id` > ? OR"
                        + " (`customer_id` = ? AND `name` > ?)) ORDER BY `customer_id`, `name` LIMIT 500");
        assertThat(RowSql.afterParameters(new Object[] {7L, "b"})).containsExactly(7L, 7L, "b");
        assertThat(RowSql.afterParameters(new Object[] {1, 2, 3})).containsExactly(1, 1, 2, 2, 3);
    }

    @Test
    void keysAreMatchedColumnByColumn() {
        String from = "SELECT " + LAYOUT.selectList() + " FROM `shop`.`orders` WHERE ";
        assertThat(RowSql.byKeys(LAYOUT, 2))
                .isEqualTo(from + "(`customer_id` = ? AND `name` = ?) OR (`customer_id` = ? AND `name` = ?)");
        assertThat(RowSql.keyParameters(List.of(new Object[] {1L, "a"}, new Object[] {2L, "b"})))
                .containsExactly(1L, "a", 2L, "b");
        TableShape single = new TableShape("s", "t`x", List.of(new Column("id", "int", "int(11)", null)), List.of(0));
        RowLayout singleLayout =
                new RowLayout(single, MovingRows.of(new SingleStrategy(1), new SingleStrategy(2), 1, 2));
        assertThat(RowSql.byKeys(singleLayout, 3))
                .isEqualTo("SELECT " + singleLayout.selectList() + " FROM `s`.`t``x` WHERE `id` IN (?, ?, ?)");
        assertThatThrownBy(() -> RowSql.byKeys(singleLayout, 0)).hasMessageContaining("no keys");
        // one row by an equality on its whole key: a unique search that locks that record alone
        assertThat(RowSql.deleteOne(single)).isEqualTo("DELETE FROM `s`.`t``x` WHERE `id` = ?");
        assertThat(RowSql.deleteOne(ORDERS))
                .isEqualTo("DELETE FROM `shop`.`orders` WHERE `customer_id` = ? AND `name` = ?");
    }

    @Test
    void lockingReadsNameEachKeyOnItsOwn() {
        String one = "(SELECT " + LAYOUT.selectList()
                + " FROM `shop`.`orders` WHERE `customer_id` = ? AND `name` = ? FOR UPDATE)";
        assertThat(RowSql.lockingByKeys(LAYOUT, 1, " FOR UPDATE")).isEqualTo(one);
        assertThat(RowSql.lockingByKeys(LAYOUT, 3, " FOR UPDATE"))
                .isEqualTo(one + " UNION ALL " + one + " UNION ALL " + one)
                .doesNotContain(" IN (");
        assertThat(RowSql.lockingByKeys(LAYOUT, 2, " LOCK IN SHARE MODE NOWAIT"))
                .endsWith("`name` = ? LOCK IN SHARE MODE NOWAIT)")
                .contains(" NOWAIT) UNION ALL (SELECT ");
        assertThatThrownBy(() -> RowSql.lockingByKeys(LAYOUT, 0, " FOR UPDATE")).hasMessageContaining("no keys");
        assertThatThrownBy(() -> RowSql.lockingByKeys(LAYOUT, 2, "")).hasMessageContaining("no locking clause");
    }

    @Test
    void insertsWriteAllButGeneratedColumns() {
        assertThat(RowSql.insert(LAYOUT, 2))
                .isEqualTo("INSERT INTO `shop`.`orders` (`customer_id`, `name`, `weight`, `flags`) VALUES"
                        + " (?, ?, ?, ?), (?, ?, ?, ?)");
    }

    @Test
    void rowsCarryTheirKeysAsTheRulesAndTheServerReadThem() {
        byte[][] items = {
            bytes("18446744073709551615"),
            new byte[] {(byte) 0xe9}, // 'é' in latin1, as stored
            bytes("0.12345670163631439"),
            bytes("53"),
            bytes("12.50"),
            bytes("18446744073709551615"),
            "é".getBytes(StandardCharsets.UTF_8),
            bytes("18446744073709551615")
        };
        Row row = LAYOUT.row(items);
        assertThat(row.values()).hasNumberOfRows(5);
        assertThat(row.values()[1]).containsExactly(0xe9);
        assertThat(row.primaryKey()).containsExactly(new BigInteger("18446744073709551615"), "é");
        assertThat(row.shardKey()).isEqualTo(new BigInteger("18446744073709551615"));
        assertThat(LAYOUT.moves(row))
                .as("a key beyond a long is placed nowhere, as the router reads it")
                .isFalse();
        assertThat(LAYOUT.writeValue(3, bytes("53")))
                .as("BIT is written as its number")
                .isEqualTo(BigInteger.valueOf(53));
        assertThat(LAYOUT.writeValue(1, items[1])).isSameAs(items[1]);
        assertThat(LAYOUT.writeValue(1, null)).isNull();
        assertThat(RowLayout.bindValue(new Column("d", "decimal", "decimal(30,10)", null), bytes("-1.5000000000")))
                .isEqualTo(new BigDecimal("-1.5000000000"));
        assertThat(RowLayout.bindValue(new Column("i", "int", "int(11)", null), bytes("-42")))
                .isEqualTo(-42L);
        assertThat(RowLayout.bindValue(new Column("b", "varbinary", "varbinary(4)", null), new byte[] {0, 1}))
                .isEqualTo(new byte[] {0, 1});
    }

    @Test
    void keysThatCannotBeFoundAgainAreRefused() {
        TableShape floatKey = new TableShape("s", "t", List.of(new Column("f", "double", "double", null)), List.of(0));
        assertThatThrownBy(() ->
                        new RowLayout(floatKey, MovingRows.of(new SingleStrategy(1), new SingleStrategy(2), 1, 2)))
                .hasMessageContaining("primary key column f is double");
        assertThatThrownBy(() -> new TableShape("s", "t", List.of(new Column("f", "int", "int", null)), List.of()))
                .hasMessageContaining("has no primary key");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
