package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.digest.Digest;
import java.util.List;
import org.junit.jupiter.api.Test;

class LastInsertIdTest {

    @Test
    void answersOnlyWhileTheRouterHoldsTheValue() {
        LastInsertId id = new LastInsertId();
        assertThat(id.column("SELECT LAST_INSERT_ID()")).isNull(); // the backend's session knows
        id.generated(42);
        assertThat(id.column("SELECT LAST_INSERT_ID()")).isEqualTo("LAST_INSERT_ID()");
        assertThat(id.value()).isEqualTo(42);
        Object lease = new Object();
        id.heldBy(lease);
        assertThat(id.column("SELECT LAST_INSERT_ID()")).isNull();
        id.read(lease, 43);
        assertThat(id.column("SELECT LAST_INSERT_ID()"))
                .as("a value read off a server session is given to the next one, not answered")
                .isNull();
        assertThat(id.wanted()).isEqualTo(43);
        id.generated(43);
        id.reset();
        assertThat(id.column("SELECT LAST_INSERT_ID()")).isNull();
    }

    @Test
    void theColumnIsNamedAsTheClientWroteItOrByItsAlias() {
        LastInsertId id = new LastInsertId();
        id.generated(7);
        assertThat(id.column("  select last_insert_id( ) ;")).isEqualTo("last_insert_id( )");
        assertThat(id.column("SELECT @@identity")).isEqualTo("@@identity");
        assertThat(id.column("SELECT @@session.last_insert_id AS id")).isEqualTo("id");
        assertThat(id.column("SELECT LAST_INSERT_ID() `the ``id`")).isEqualTo("the `id");
        assertThat(id.column("SELECT LAST_INSERT_ID() AS 'x'")).isEqualTo("x");
    }

    @Test
    void otherStatementsGoToTheBackend() {
        LastInsertId id = new LastInsertId();
        id.generated(7);
        assertThat(id.column("SELECT LAST_INSERT_ID(5)")).isNull(); // sets the value: the backend's business
        assertThat(id.column("SELECT LAST_INSERT_ID(), 1")).isNull();
        assertThat(id.column("SELECT * FROM t WHERE id = LAST_INSERT_ID()")).isNull();
        assertThat(id.column("SELECT @@global.identity")).isNull();
    }

    @Test
    void writesTheValueInPlaceOfLastInsertIdCallsOutsideQuotesAndComments() {
        LastInsertId id = new LastInsertId();
        String sql = "INSERT INTO items (order_id, note) VALUES (LAST_INSERT_ID(), 'LAST_INSERT_ID()')";
        assertThat(id.substitute(sql)).isSameAs(sql); // the router holds nothing
        id.generated(99);
        assertThat(id.substitute(sql)).isEqualTo("INSERT INTO items (order_id, note) VALUES (99, 'LAST_INSERT_ID()')");
        assertThat(id.substitute("SELECT * FROM t WHERE id = last_insert_id ( ) -- LAST_INSERT_ID()\n"))
                .isEqualTo("SELECT * FROM t WHERE id = 99 -- LAST_INSERT_ID()\n");
        assertThat(id.substitute("SELECT `LAST_INSERT_ID()`, \"a\\\"LAST_INSERT_ID()\" /* LAST_INSERT_ID() */"))
                .isEqualTo("SELECT `LAST_INSERT_ID()`, \"a\\\"LAST_INSERT_ID()\" /* LAST_INSERT_ID() */");
        // with an argument it sets the value: left to the backend; so are other names ending alike
        String set = "UPDATE t SET n = LAST_INSERT_ID(n + 1), m = my_last_insert_id()";
        assertThat(id.substitute(set)).isSameAs(set);
    }

    @Test
    void statementsThatMaySetTheServerSessionsLastInsertId() {
        for (String sql : List.of(
                "INSERT INTO t (a) VALUES (1)",
                "insert t values (null, 2) on duplicate key update b = values(b)",
                "REPLACE INTO t VALUES (1)",
                "INSERT INTO t SELECT * FROM u",
                "LOAD DATA INFILE 'x' INTO TABLE t",
                "CALL add_row()",
                "SELECT LAST_INSERT_ID(7)",
                "UPDATE t SET id = LAST_INSERT_ID(id + 1)",
                "DO last_insert_id(0)")) {
            assertThat(LastInsertId.mayChange(Digest.of(sql))).as(sql).isTrue();
        }
        for (String sql : List.of(
                "SELECT 1", "UPDATE t SET a = 1", "DELETE FROM t", "SET @a = 1", "SELECT 'LAST_INSERT_ID(1)'")) {
            assertThat(LastInsertId.mayChange(Digest.of(sql))).as(sql).isFalse();
        }
    }
}
