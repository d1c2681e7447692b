package io.shardgate.router.resultcache;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.cache.QualifiedTable;
import io.shardgate.sharding.digest.Digest;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StatementTablesTest {
    private static Set<QualifiedTable> read(String sql) {
        return StatementTables.read("shop", Digest.of(sql).text());
    }

    private static Invalidation write(String sql) {
        return StatementTables.write("shop", Digest.of(sql).text());
    }

    private static QualifiedTable t(String schema, String table) {
        return QualifiedTable.of(schema, table);
    }

    @Test
    void aReadIsRecordedUnderEveryNameThatCouldBeOneOfItsTables() {
        assertThat(read("select c from sbtest1 where id = 5"))
                .contains(t("shop", "sbtest1"))
                .doesNotContain(t("shop", "select"), t("shop", "where"));
        assertThat(read("SELECT o.id FROM Orders o JOIN other.`Order Items` i ON o.id = i.order_id"))
                .contains(t("shop", "orders"), t("other", "order items"));
        assertThat(read("SELECT x FROM a WHERE y IN (SELECT y FROM b) AND EXISTS (SELECT 1 FROM c.d)"))
                .contains(t("shop", "a"), t("shop", "b"), t("c", "d"));
        assertThat(read("SELECT * FROM (SELECT id FROM inner_t) AS derived, t2"))
                .contains(t("shop", "inner_t"), t("shop", "t2"));
        assertThat(read("SELECT COUNT(*) FROM t")).contains(t("shop", "t")).doesNotContain(t("shop", "count"));
    }

    @Test
    void insertAndReplaceChangeTheirTargetOnly() {
        assertThat(write("INSERT INTO items (id, name) SELECT id, name FROM staging")
                        .tables())
                .containsExactly(t("shop", "items"));
        assertThat(write("insert low_priority ignore into other.t(a) values (1)")
                        .tables())
                .containsExactly(t("other", "t"));
        assertThat(write("REPLACE items VALUES (1)").tables()).containsExactly(t("shop", "items"));
    }

    @Test
    void statementModifiersAreNeverTables() {
        assertThat(write("DELETE QUICK IGNORE FROM items WHERE id = 3").tables())
                .containsExactly(t("shop", "items"));
        assertThat(write("UPDATE LOW_PRIORITY IGNORE items SET x = 1").tables()).containsExactly(t("shop", "items"));
        assertThat(write("INSERT DELAYED items VALUES (1)").tables()).containsExactly(t("shop", "items"));
        assertThat(read("SELECT SQL_NO_CACHE STRAIGHT_JOIN a FROM t"))
                .contains(t("shop", "t"))
                .doesNotContain(t("shop", "sql_no_cache"), t("shop", "straight_join"));
    }

    @Test
    void updateAndDeleteChangeTheTablesTheyName() {
        assertThat(write("UPDATE items SET name = 'x' WHERE id = (SELECT 1 FROM other_t)")
                        .tables())
                .containsExactly(t("shop", "items"));
        assertThat(write("UPDATE a JOIN b ON a.id = b.id SET a.x = b.x").tables())
                .contains(t("shop", "a"), t("shop", "b"));
        assertThat(write("DELETE FROM items WHERE id = 3").tables()).containsExactly(t("shop", "items"));
        assertThat(write("DELETE a FROM t1 a JOIN s2.t2 b ON a.id = b.id WHERE b.x = 1")
                        .tables())
                .contains(t("shop", "t1"), t("s2", "t2"));
    }

    @Test
    void ddlDropsItsTablesAndDatabaseStatementsTheirSchema() {
        assertThat(write("ALTER TABLE items ADD COLUMN z INT").tables()).contains(t("shop", "items"));
        assertThat(write("TRUNCATE TABLE items").tables()).contains(t("shop", "items"));
        assertThat(write("RENAME TABLE a TO b").tables()).contains(t("shop", "a"), t("shop", "b"));
        Invalidation drop = write("DROP DATABASE IF EXISTS other");
        assertThat(drop.schemas()).containsExactly("other");
        assertThat(drop.tables()).isEmpty();
    }

    @Test
    void readsAndSessionStatementsChangeNothing() {
        for (String sql : new String[] {
            "SELECT * FROM t FOR UPDATE",
            "SET NAMES utf8mb4",
            "BEGIN",
            "COMMIT",
            "SHOW TABLES",
            "USE shop",
            "(SELECT 1) UNION (SELECT 2)",
            "WITH x AS (SELECT 1) SELECT * FROM x"
        }) {
            assertThat(write(sql).isNone()).as(sql).isTrue();
        }
    }

    @Test
    void statementsWhoseEffectsAreInvisibleInvalidateEverything() {
        assertThat(write("CALL refresh_totals()").all()).isTrue();
        assertThat(write("EXECUTE stmt USING @a").all()).isTrue();
        assertThat(StatementTables.write(null, "INSERT INTO t VALUES (?)").all())
                .as("no schema selected: the table cannot be qualified")
                .isTrue();
    }

    @Test
    void rollbackDiscardsButRollbackToASavepointDoesNot() {
        assertThat(StatementTables.isRollback("ROLLBACK")).isTrue();
        assertThat(StatementTables.isRollback("ROLLBACK WORK")).isTrue();
        assertThat(StatementTables.isRollback("ROLLBACK TO SAVEPOINT s1")).isFalse();
        assertThat(StatementTables.isRollback("COMMIT")).isFalse();
    }

    @Test
    void invalidationsOfATransactionAccumulate() {
        Invalidation a = write("UPDATE a SET x = 1");
        Invalidation b = write("DELETE FROM b");
        assertThat(a.plus(b).tables()).containsExactlyInAnyOrder(t("shop", "a"), t("shop", "b"));
        assertThat(a.plus(Invalidation.ALL).all()).isTrue();
        assertThat(Invalidation.NONE.plus(a)).isEqualTo(a);
    }
}
