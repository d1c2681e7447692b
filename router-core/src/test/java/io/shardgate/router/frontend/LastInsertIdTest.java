package io.shardgate.router.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LastInsertIdTest {

    @Test
    void answersOnlyWhileTheRouterHoldsTheValue() {
        LastInsertId id = new LastInsertId();
        assertThat(id.column("SELECT LAST_INSERT_ID()")).isNull(); // the backend's session knows
        id.generated(42);
        assertThat(id.column("SELECT LAST_INSERT_ID()")).isEqualTo("LAST_INSERT_ID()");
        assertThat(id.value()).isEqualTo(42);
        id.backendInsert();
        assertThat(id.column("SELECT LAST_INSERT_ID()")).isNull();
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
}
