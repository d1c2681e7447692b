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
    void aHolderKeepsTheValueUntilItIsReadBack() {
        LastInsertId id = new LastInsertId();
        Object first = new Object();
        Object second = new Object();
        id.heldBy(first);
        assertThat(id.holder()).isSameAs(first);
        assertThat(id.readFirst())
                .as("a plain holder is read where the statement runs")
                .isFalse();
        id.heldBy(second); // a later INSERT elsewhere
        id.read(first, 5);
        assertThat(id.holder()).as("a stale read changes nothing").isSameAs(second);
        id.read(second, 6);
        assertThat(id.holder()).isNull();
        assertThat(id.wanted()).isEqualTo(6);
        assertThat(id.value()).as("not the router's key: the server answers").isZero();
        id.lostWith(first);
        assertThat(id.unknown()).isFalse();
        id.heldBy(first);
        id.lostWith(first);
        assertThat(id.unknown()).isTrue();
    }

    @Test
    void afterAMultiShardInsertOnlyAValueSetAgainCounts() {
        LastInsertId id = new LastInsertId();
        Object lease = new Object();
        id.lost();
        assertThat(id.unknown()).isTrue();
        assertThat(id.wanted()).as("the next server session is given 0").isZero();
        id.heldBy(lease);
        assertThat(id.readFirst()).isTrue();
        id.read(lease, 0);
        assertThat(id.unknown()).as("the statement set nothing").isTrue();
        id.heldBy(lease);
        id.read(lease, 901);
        assertThat(id.unknown()).isFalse();
        assertThat(id.wanted()).isEqualTo(901);
    }

    @Test
    void theRoutersKeyReadBackUnchangedIsTheKeyStill() {
        LastInsertId id = new LastInsertId();
        Object lease = new Object();
        id.generated(42);
        id.heldBy(lease); // INSERT INTO visits (id) VALUES (42): explicit, keeps it
        assertThat(id.value()).isZero();
        assertThat(id.readFirst())
                .as("read back before a statement that routes by it")
                .isTrue();
        id.read(lease, 42);
        assertThat(id.value()).isEqualTo(42);
        id.heldBy(lease);
        id.read(lease, 43); // that INSERT generated its own
        assertThat(id.value()).isZero();
        assertThat(id.wanted()).isEqualTo(43);
    }

    @Test
    void whatMaySetReadOrKeepIt() {
        assertThat(LastInsertId.mayChange(Digest.of("SELECT LAST_INSERT_ID()"))).isFalse();
        assertThat(LastInsertId.mayChange(Digest.of("SELECT LAST_INSERT_ID(5)")))
                .isTrue();
        assertThat(LastInsertId.mayChange(Digest.of("UPDATE t SET id = last_insert_id ( id + 1 )")))
                .isTrue();
        assertThat(LastInsertId.mayChange(Digest.of("insert into t values (1)")))
                .isTrue();
        assertThat(LastInsertId.mayChange(Digest.of("CALL p()"))).isTrue();
        assertThat(LastInsertId.mayObserve(Digest.of("SELECT a, COUNT(*) FROM t WHERE b = 1 GROUP BY a")))
                .isFalse();
        assertThat(LastInsertId.mayObserve(Digest.of("SELECT 1"))).isFalse();
        assertThat(LastInsertId.mayObserve(Digest.of("SELECT @@identity"))).isTrue();
        assertThat(LastInsertId.mayObserve(Digest.of("SELECT LAST_INSERT_ID() + 1")))
                .isTrue();
        assertThat(LastInsertId.mayObserve(Digest.of("SELECT my_function(a) FROM t")))
                .isTrue();
        assertThat(LastInsertId.mayObserve(Digest.of("SELECT shop.f()"))).isTrue();
        assertThat(LastInsertId.mayObserve(
                        Digest.of("SELECT * FROM information_schema.SESSION_VARIABLES WHERE variable_name = 'x'")))
                .isTrue();
        assertThat(LastInsertId.mayObserve(Digest.of("SHOW VARIABLES LIKE 'last_insert_id'")))
                .isTrue();
        assertThat(LastInsertId.mayObserve(Digest.of("UPDATE t SET a = 1")))
                .as("a trigger may read it")
                .isTrue();
        assertThat(LastInsertId.mayObserve(null)).isTrue();
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
